package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// probeSupport runs `launcher sandbox-exec --probe` in new user and mount
// namespaces, or, when the kernel refuses those (a sysctl, AppArmor's
// restriction on Ubuntu, a container), without them.
func probeSupport(ctx context.Context, launcher string) (Support, bool) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nsErr := errors.New("turned off by " + NoUsernsEnv + " (tests of the fallback)")
	if os.Getenv(NoUsernsEnv) == "" {
		s, err := runProbe(ctx, launcher, true)
		if err == nil {
			return s, s.Protect
		}
		nsErr = err
	}
	s, err := runProbe(ctx, launcher, false)
	if err != nil {
		return Support{Missing: []string{"the sandbox launcher failed: " + err.Error()}}, false
	}
	s.Protect = false
	s.Missing = append(s.Missing, "user namespaces are refused here ("+nsErr.Error()+"): "+unprotected, isolationMissing)
	return s, false
}

func runProbe(ctx context.Context, launcher string, userns bool) (Support, error) {
	mode := probeNoUserns
	if userns {
		mode = "--probe"
	}
	cmd := exec.CommandContext(ctx, launcher, Subcommand, mode)
	if userns {
		setNamespaces(cmd)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return Support{}, fmt.Errorf("%w %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	var s Support
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		return Support{}, fmt.Errorf("probe answer %q: %w", out.String(), err)
	}
	return s, nil
}

// probeNoUserns is the probe outside namespaces of its own: it does not
// try the mounts, and the host says once why they are missing.
const probeNoUserns = "--probe-without-userns"

// setNamespaces starts cmd in new user and mount namespaces, its user
// and group mapped to themselves: no privilege beyond its own, and its
// mounts invisible to everyone else. It keeps launcherCaps across its
// exec there (ambient), which it drops before any command runs.
func setNamespaces(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.AmbientCaps = launcherCaps
}

func (b *Box) wrap(cmd *exec.Cmd, p Policy) error {
	req, err := encodeRequest(request{Policy: p, Use: b.support})
	if err != nil {
		return err
	}
	cmd.Args = append([]string{b.launcher, Subcommand, req, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = b.launcher
	if b.userns {
		setNamespaces(cmd)
	}
	ownSession(cmd, b.support.PID)
	return nil
}

// NoUsernsEnv, when set, has the probe skip user namespaces, as a kernel
// that refuses them would: it only takes a mechanism away (more asking),
// for testing the fallback.
const NoUsernsEnv = "CODER_NVIM_SANDBOX_NO_USERNS"
