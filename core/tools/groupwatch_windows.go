package tools

// groupWatch does nothing on Windows: each call's processes are in a job
// object (proc.Group) that the kernel kills when the host dies, its
// handle closed with the host's, so no watcher is needed.
type groupWatch struct{ bash string }

func (*groupWatch) add(int) error { return nil }
func (*groupWatch) ready()        {}
func (*groupWatch) remove(int)    {}
func (*groupWatch) close()        {}
