package engine

// stageGit makes the git layout in the sandbox (root/repo, root/hostile,
// root-evil/repo, canary/remote.git) before the start of a pack that asks
// for it (Pack.GitLayout: the git pack's), when open left it out (see
// wantsGit). The files observer
// must not take the harness's own writes for the server's: what changed
// while no probe ran before the staging goes to the timeline, as Pack
// would put it there, and the staging's own changes are collected and
// dropped. The new canary (root-evil/repo's secret) is redacted from then
// on, like the canaries made by open.
func (e *Engine) stageGit() {
	if e.sb == nil || e.sb.Repo != "" {
		return
	}
	fo := e.filesObserver()
	if fo != nil {
		e.toTimeline(fo.Collect(""))
	}
	notes := e.sb.StageGit()
	if fo != nil {
		_ = fo.Collect("")
	}
	if s := e.sb.Git.EvilRepoSecret; s != "" {
		e.redactor.Secret(s, "<canary-file>")
	}
	for _, n := range notes {
		e.warn("sandbox: " + n)
	}
}
