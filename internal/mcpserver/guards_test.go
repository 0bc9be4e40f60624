package mcpserver

import "testing"

// One answer to "loopback?" for a listen address and a Host header alike.
func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:80", true},
		{"[::1]:80", true},
		{"localhost:80", true},
		{"LocalHost:80", true},    // host names are not case-sensitive
		{"127.1.2.3:80", true},    // all of 127.0.0.0/8
		{"localhost", true},       // a Host header without its port
		{"[::1]", true},           // the same, IPv6
		{"::1", true},             // a bare IPv6 address
		{"0.0.0.0", false},        // every interface
		{"0.0.0.0:8080", false},   // every interface
		{"[::]:8080", false},      // every interface, IPv6
		{":8080", false},          // no host: every interface
		{"example.com:80", false}, // a host name
		{"localhost.example.com:80", false},
		{"8080", false}, // a port alone
		{"", false},
	}
	for _, tt := range tests {
		if got := IsLoopback(tt.addr); got != tt.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}
