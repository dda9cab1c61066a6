package web

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// blocked reports whether a fetch must not connect to ip: loopback,
// private, link-local (the cloud metadata address among them), carrier
// NAT, multicast and unspecified addresses are the machine's or its
// network's own, never the public web.
func blocked(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		cgnat.Contains(ip) || thisNetwork.Contains(ip)
}

var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
)

// errPrivate is a connection refused because of its address.
var errPrivate = errors.New("private address")

// dialControl refuses, at connect time, an address blocked says no to:
// the address checked is the one connected to, so a name that resolves
// to a public address for a check and a private one for the connection
// (DNS rebinding) gains nothing.
func dialControl(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("connect to %s: not an IP address", host)
		}
		if blocked(ip) {
			return fmt.Errorf("%w %s: loopback, private, link-local and metadata addresses are never fetched (the user's own config may set web.allow_private)", errPrivate, ip)
		}
		return nil
	}
}
