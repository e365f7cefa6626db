package tcp

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// setTOS gives a connection's socket the IP type of service asked for
// (transport.Config.TOS): IP_TOS on IPv4, IPV6_TCLASS on IPv6. Zero
// leaves the kernel's default.
func setTOS(s stream, tos int) error {
	if tos == 0 {
		return nil
	}
	sc, ok := s.(syscall.Conn)
	if !ok {
		return fmt.Errorf("tcp: type of service %#x: the stream has no socket", tos)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return fmt.Errorf("tcp: type of service %#x: %w", tos, err)
	}
	level, opt := unix.IPPROTO_IP, unix.IP_TOS
	if a, ok := s.LocalAddr().(*net.TCPAddr); ok && a.IP.To4() == nil {
		level, opt = unix.IPPROTO_IPV6, unix.IPV6_TCLASS
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), level, opt, tos) }); err != nil {
		return fmt.Errorf("tcp: type of service %#x: %w", tos, err)
	}
	if serr != nil {
		return fmt.Errorf("tcp: type of service %#x: setsockopt: %w", tos, serr)
	}
	return nil
}
