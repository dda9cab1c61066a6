package atomicfile

import (
	"os"
	"testing"
)

func umask(*testing.T) os.FileMode { return 0 }
