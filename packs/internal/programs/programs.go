// Package programs reads which programs a server ran from the process
// records of one call or probe: the one reader the effects pack and table
// rows share.
//
//	for _, r := range programs.Ran(recs) {
//		fmt.Println(r.Data[observers.KeyPid], packs.Argv(r))
//	}
package programs

import "github.com/sealmark/sealmark/observers"

// Ran keeps one record per process that started or ran a program, in the
// order first seen. Of the records of one pid it keeps the surest: an
// exec line (it names the program for certain) over a sample, and an
// execve sample over a spawned one (a fork sampled before its exec still
// shows the server's own command line); else the first seen. Records of
// other ops are left out; records without a pid are each kept.
func Ran(recs []observers.Record) []observers.Record {
	var out []observers.Record
	at := map[string]int{}
	for _, r := range recs {
		op := r.Data[observers.KeyOp]
		switch op {
		case observers.OpSpawned, observers.OpExecve, observers.OpExec:
		default:
			continue
		}
		pid := r.Data[observers.KeyPid]
		i, ok := at[pid]
		switch {
		case !ok || pid == "":
			at[pid] = len(out)
			out = append(out, r)
		case op == observers.OpExec || (op == observers.OpExecve && out[i].Data[observers.KeyOp] == observers.OpSpawned):
			out[i] = r
		}
	}
	return out
}
