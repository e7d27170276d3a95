package sockets

const haveProc = true
