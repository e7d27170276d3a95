// Package upstream is an HTTP stub on 127.0.0.1 that plays a server's
// upstream API ({upstream}): it answers with scripted responses, including
// a redirect to the loopback listener and a file list naming a traversal
// path, and records every request, attributed to the probe that caused it.
//
//	stub, err := upstream.Start(upstream.Options{
//		Redirect: listener.URL() + "/redirected",
//		Host:     "api.example.test", // the host the server is configured with
//	})
//	if err != nil {
//		return err
//	}
//	stub.Begin(token)
//	// ... the server, configured with stub.URL(), calls its upstream ...
//	for _, r := range stub.Collect(token) {
//		fmt.Println(r.Summary) // GET /v1/items?api_key=<redacted> on evil.test answered 200 (token in request); credentials ...
//	}
//	for _, c := range stub.Credentials(token) {
//		if c.Value == fakeAPIKey { /* the key reached the upstream, under c.Host */ }
//	}
//	late := stub.Close() // what no Collect returned, then the loss records
//
// # Routes
//
// Options.Routes are matched first (method, or any when empty, and exact
// path). Then the defaults: GET /redirect answers 302 with Location set to
// Options.Redirect; GET /files answers
//
//	{"files":[{"name":"../canary/upstream.txt","content":"sealmark upstream file"}]}
//
// and anything else answers 200 with {"ok":true,"path":"<the path>"}. Every
// redirect target the stub can send is a loopback http(s) URL or a path on
// the stub; Start refuses any other. The stub never sends a request itself.
//
// # What a request record holds
//
// Kind "upstream", the time handling began, and in Data: peer, method, path
// (path and query as sent, with the value of each query parameter whose
// name looks secret replaced by "<redacted>"), host (the Host header),
// headers (the header names, sorted, Host included), bytes (body bytes
// read, at most 64 KiB), truncated ("true" when there was more), status,
// token_found and attributed. A request carrying credentials (a header or a
// query parameter whose name contains key, token, secret, passw, auth,
// credential, cookie or bearer, in any case) also has credentials, where
// they were ("header:Authorization,query:api_key"), and credential_host.
// When Options.Host is set, host_mismatch says whether the request's Host
// differs from it, and the summary names both hosts when it does. The
// values themselves are only returned by Credentials.
//
// # Attribution and bounds
//
// As in package loopback: a token passed to Begin that occurs in the request
// target, a header or the body read wins; otherwise the record belongs to the
// probe open when handling began (attributed "time"), or to none ("none")
// after Begin(""). The server has header, read, write and idle timeouts and a
// 16 KiB header limit (a request past it is answered by net/http and not
// recorded). At most 64 connections are served at once, more are closed
// unread; at most 10,000 records are kept until returned. Both losses come
// back as KindLoss records from Collect or Close.
package upstream
