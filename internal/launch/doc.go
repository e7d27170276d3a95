// Package launch starts a stdio MCP server under the harness's control: in its
// own process group, at the niceness the harness process started with (on
// Linux; not one its threads got later), with exactly the environment it is given, its stderr in a
// bounded server log, and its stdout split into recorded frames of which only
// the valid JSON ones reach the MCP client.
//
//	proc, err := launch.Start(launch.Spec{
//		Path: "/usr/local/bin/mcp-server", // resolved against the server's PATH
//		Env:  []string{"PATH=/usr/bin:/bin", "HOME=" + home},
//		Dir:  root,
//	})
//	if err != nil {
//		return err
//	}
//	defer proc.Stop(2*time.Second, 3*time.Second)
//	tr := transport.NewIO(proc.Messages(), proc.Input(), io.NopCloser(strings.NewReader("")))
//	// ... talk MCP through tr; send malformed bytes with proc.WriteRaw ...
//	for _, f := range proc.Frames(0) {
//		if f.Kind != launch.JSON {
//			fmt.Printf("stdout line %d is %s (%d bytes)\n", f.Seq, f.Kind, f.Size)
//		}
//	}
//
// Everything is bounded: a stdout line longer than Spec.MaxLine is recorded as
// oversize (held for delivery up to Spec.MaxMessage, past that discarded as
// it streams by and told to OnCut at once, so the request it answers need
// not wait), the frames kept as evidence are capped by Spec.MaxFrameBytes,
// and the server log keeps the most recent Spec.LogBytes of stderr. Losses are counted (FramesLost, Log().Lost()) so the
// report can say what is missing.
//
// Stop follows the specification's shutdown (close stdin, wait, SIGTERM the
// group, wait, SIGKILL the group), then kills and lists any process left in the
// group after the leader was reaped. Every wait has a deadline. Process groups
// and the listing of leftovers need Linux or another Unix; elsewhere only the
// leader is killed.
package launch
