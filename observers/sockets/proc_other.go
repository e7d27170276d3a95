//go:build !linux

package sockets

const haveProc = false
