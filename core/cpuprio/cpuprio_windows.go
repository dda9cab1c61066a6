package cpuprio

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// Lower lowers this process, and the processes it starts from now on
// (they inherit a below-normal class), to the below-normal priority class
// for any nice of 1 or more; Windows has no finer scale a process can
// take. It never raises a class already lower. editor changes nothing.
func Lower(nice, editor int) (string, error) {
	if nice <= 0 {
		return "", nil
	}
	self := windows.CurrentProcess()
	switch class, err := windows.GetPriorityClass(self); {
	case err != nil:
		return "", fmt.Errorf("read the CPU priority class: %w", err)
	case class == windows.IDLE_PRIORITY_CLASS || class == windows.BELOW_NORMAL_PRIORITY_CLASS:
		return "priority class already below normal", nil
	}
	if err := windows.SetPriorityClass(self, windows.BELOW_NORMAL_PRIORITY_CLASS); err != nil {
		return "", fmt.Errorf("lower the CPU priority class: %w", err)
	}
	return "priority class below normal", nil
}
