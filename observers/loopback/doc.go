// Package loopback is the harness's own listener: it proves that a server
// fetched a URL it was given, called back from sm-canary, or sent data out,
// by recording every connection it receives and the probe token it carries.
//
//	l, err := loopback.Listen() // 127.0.0.1:0, and [::1]:0 when available
//	if err != nil {
//		return err
//	}
//	l.Begin(token)
//	// ... the probe asks the server to fetch l.URL() + "/" + token ...
//	for _, r := range l.Collect(token) {
//		fmt.Println(r.Summary) // GET /smtok-ab12 from 127.0.0.1:53210 (token in request)
//	}
//	late := l.Close() // what no Collect returned, then the loss records
//
// # What a connection record holds
//
// Kind "connection", the time the connection was accepted, and in Data:
// peer and local addresses, bytes (how many were read: at most 8 KiB, within
// 2 seconds of accept), truncated ("true" when the bound was reached),
// token_found and attributed. When the bytes start an HTTP/1.x request it
// also holds method, target (as sent, absolute-form included), host and
// headers: the header names, sorted, comma-separated. Header values are kept
// only for User-Agent, Content-Type and Content-Length (user_agent,
// content_type, content_length), since any other may be a credential. Bytes
// that are not HTTP are shown in preview (the first 64, escaped). Text from
// the client is escaped and cut to a bounded length.
//
// # Attribution
//
// Every token passed to Begin is remembered (the most recent 4096). When a
// remembered token occurs anywhere in a connection's bytes, the record
// belongs to that token (the one begun last when several occur) and
// attributed is "token". Otherwise it belongs to the probe open when the
// connection was accepted and attributed is "time". A probe is open from its
// Begin until the next Begin; Begin("") opens none, and a connection without
// a token accepted then belongs to no probe (Token "", attributed "none").
// Collect is not the end of a probe: what arrives after a probe's last
// Collect while it is still open is returned by Close.
//
// # Answers and bounds
//
// An HTTP request is answered "200 OK" with Body as text/plain and
// Connection: close; anything else is closed after reading. The listener
// never connects anywhere, whatever it is sent: an absolute-form target such
// as "GET http://example.com/" gets the same answer. At most 64 connections
// are served at once; more are accepted and closed unread. At most 10,000
// records are kept until returned. Both losses are counted against the probe
// open at the time (or the record's token) and reported as KindLoss records
// by Collect or Close (Data reason "connections" or "records", count,
// limit). Close gives connections still open 250 ms to finish sending and
// waits for them, so no goroutine outlives it.
package loopback
