// Package environ builds the environment a server under test receives, expands
// placeholders such as {sandbox}, resolves the server's command against that
// environment's PATH, and warns about real paths written into a server's
// configuration.
//
//	env, inherited := environ.Build(environ.Spec{
//		Scrub:     true,
//		Bin:       sb.Bin,
//		Home:      sb.Home,
//		Tmp:       sb.Tmp,
//		KeepEnv:   []string{"HTTP_PROXY"},
//		ServerEnv: []environ.KV{{Name: "LOG_LEVEL", Value: "debug"}},
//		Canaries:  environ.Canaries(), // first start only
//		Caller:    os.Environ(),
//		GOOS:      runtime.GOOS,
//	})
//	fmt.Println("inherited:", strings.Join(inherited, ", "))
//	// inherited: PATH (system part), LANG, npm_config_cache, HTTP_PROXY
//	path, err := environ.LookPath("npx", environ.Value(env, "PATH"), cwd)
//
// A scrubbed environment is built from an allowlist (the sandbox page's
// table), never copied from the caller: layers are the sandbox base, then the
// names in KeepEnv that the caller sets, then ServerEnv, then the canaries, and
// a later layer replaces an earlier variable of the same name. Nothing else of
// the caller's environment reaches the server.
package environ
