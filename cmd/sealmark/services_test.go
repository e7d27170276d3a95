package main

import (
	"net"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorChecksServices: doctor says each declared service answers, and
// fails one that does not (a port nothing listens on, a socket path that
// does not exist).
func TestDoctorChecksServices(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadAddr := dead.Addr().String()
	dead.Close()
	sock := filepath.Join(t.TempDir(), "db.sock")
	uln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer uln.Close()
	missing := filepath.Join(t.TempDir(), "none.sock")

	argv := serverArgs(t, "")
	code, out, _ := doctorRun(t, append([]string{"--service", "tcp:" + ln.Addr().String(), "--service", "unix:" + sock,
		"--service", "tcp:" + deadAddr, "--service", "unix:" + missing, "--"}, argv...)...)
	assert.Equal(t, 2, code, out)
	assert.Regexp(t, checkLine("ok", "services", regexp.QuoteMeta("tcp:"+ln.Addr().String()+" answers; the server may reach it")), out)
	assert.Regexp(t, checkLine("ok", "services", regexp.QuoteMeta("unix:"+sock+" answers; the server may reach it")), out)
	assert.Regexp(t, checkLine("fail", "services", regexp.QuoteMeta("tcp:"+deadAddr+" does not answer: dial tcp "+deadAddr+": connect: connection refused (start it, or remove it from sandbox.services)")), out)
	assert.Regexp(t, checkLine("fail", "services", regexp.QuoteMeta("unix:"+missing+" does not answer: dial unix "+missing+": connect: no such file or directory")), out)
}
