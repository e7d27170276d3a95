package engine

// gitPack is the name of the pack whose start needs the sandbox's git
// layout (root/repo, root/hostile, root-evil/repo, canary/remote.git).
const gitPack = "git"

// stageGit makes the git pack's layout in the sandbox before the git
// pack's start, when open left it out (see wantsGit). The files observer
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
