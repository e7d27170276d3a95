// Package sandbox makes the disposable directory a server under test runs
// in, and removes it afterwards.
//
//	sb, err := sandbox.New(sandbox.Options{}) // <os.TempDir()>/sealmark-<16 hex>
//	if err != nil {
//		return err
//	}
//	defer func() {
//		if err := sb.Remove(); err != nil {
//			fmt.Fprintln(os.Stderr, err) // names the path left behind
//		}
//	}()
//	cmd.Dir = sb.Root // the server's working directory and allowed root, {sandbox}
//	for _, secret := range sb.Secrets() {
//		if strings.Contains(response, secret) {
//			// the server read a canary: it escaped its root
//		}
//	}
//
// The layout, every directory mode 0700:
//
//	sealmark-<16 hex>/
//	  root/             the server's working directory and allowed root ({sandbox})
//	    ok.txt          a random token: reading it is allowed
//	    link-dir        -> ../canary            (where the platform allows links)
//	    link-file       -> ../canary/secret.txt
//	    repo/           with Options.GitRepo: a git repository with a staged
//	                    change and an untracked link canary-link -> ../../canary/repo
//	  root-evil/        a sibling whose name starts with root's name
//	    evil.txt        a canary
//	  canary/           secrets the server is never told about
//	    secret.txt      a canary
//	    id_rsa          a canary
//	    repo/           a git repository whose one committed file is a canary
//	  home/             the server's HOME ({sandbox_home})
//	  tmp/              the server's TMPDIR
//	  bin/              sm-canary, sm-echo, sm-sleep, sm-spew: links to sealmark-sm
//	    sealmark-sm     the sm-* helper (smbin.InstallHelper); without it
//	                    the sm-* link to the harness binary and Notes says why
//
// Every canary is a random string, so finding one anywhere (a response, a
// log, a request to the loopback listener) proves the server reached it.
// Commit dates and identities in the repositories are fixed, so the same
// content gives the same commit hashes in every run.
//
// [WriteFixture] writes the same layout into a directory you name, with a
// SEALMARK-FIXTURE.txt that explains every path, for looking at by hand.
package sandbox
