package platform

func differences() []string { return nil }
