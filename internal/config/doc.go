// Package config reads sealmark.yaml, layers it with the SEALMARK_*
// environment variables and the command line, checks the result and explains
// where each value came from.
//
//	path := config.ConfigPath(os.Environ(), configFlag) // --config, else SEALMARK_CONFIG
//	var file *config.Settings
//	var lines map[string]int
//	if path != "" {
//		if file, lines, err = config.Load(path); err != nil {
//			return err // sealmark.yaml:7: server.comand: unknown key (did you mean server.command?)
//		}
//	}
//	res, err := config.Resolve(file, lines, path, os.Environ(), setFlags) // setFlags: only the flags the user gave
//	if err != nil {
//		return err // SEALMARK_ACTIVE: --active has no environment form; pass --active
//	}
//	if err := errors.Join(res.Check(), res.CheckPacks(packNames), res.CheckLayers(engine.Layers)); err != nil {
//		return err
//	}
//	res.Explain(os.Stderr) // server.env.API_KEY = <redacted>   (sealmark.yaml:9)
//
// # Layers
//
// A later layer wins: Defaults, then the file, then the environment, then the
// flags. A list is replaced whole; server.env and server.headers merge entry
// by entry. Resolved.Origins says, for every key and every map entry, which
// layer set it: "default", "sealmark.yaml:12", "env SEALMARK_PACKS",
// "flag --packs" or "command after --".
//
// # The file
//
// docs/sealmark.schema.json describes every key (a test keeps it equal to
// what Parse accepts). Parsing is strict: an unknown key, a wrong type, a
// duplicate key or invalid YAML is an error naming the file, line and key.
// The keys active and yes are refused anywhere: --active and --yes are
// given on the command line only, on purpose. Values handed to the server
// (server.args items, server.env and server.headers values, server.files
// contents) may be any scalar and are taken as written, so PORT: 8080 is
// "8080"; every other key wants its own type.
//
// # Environment variables and flags
//
//	key (sealmark.yaml)  flags map key: CLI flag              environment variable
//	server.command       command: the command after --,      -
//	server.args            a JSON array of command and args  -
//	server.env           env: --env NAME=VALUE, "\n"-joined  -
//	server.url           url: --url                          SEALMARK_URL
//	server.headers       header: --header "Name: value",     -
//	                       "\n"-joined
//	server.files         -                                   -
//	server.start         start: --start                      -
//	sandbox.keep_env     keep-env: --keep-env, comma-joined  SEALMARK_KEEP_ENV (comma list)
//	sandbox.scrub_env    -                                   SEALMARK_SCRUB_ENV (true/false)
//	sandbox.dir          sandbox-dir: --sandbox-dir          SEALMARK_SANDBOX_DIR
//	sandbox.max_mib      max-mib: --max-mib                  SEALMARK_MAX_MIB
//	sandbox.layers_off   layers-off: --layers-off, comma     SEALMARK_LAYERS_OFF (comma list)
//	                       list
//	sandbox.services     service: --service (repeatable),    SEALMARK_SERVICES (comma list)
//	                       comma-joined
//	sandbox.network      -                                   -
//	(no file key)        no-sandbox: --no-sandbox            -
//	(no file key)        keep-sandbox: --keep-sandbox        -
//	(no file key)        fresh-starts: --fresh-starts        -
//	(no file key)        jobs: --jobs                        -
//	(no file key)        uncontained: --uncontained          -
//	packs                packs: --packs, comma list          SEALMARK_PACKS (comma list)
//	hints                -                                   -
//	fail_on              fail-on: --fail-on                  SEALMARK_FAIL_ON
//	allow_inconclusive   allow-inconclusive:                 SEALMARK_ALLOW_INCONCLUSIVE
//	                       --allow-inconclusive              (true/false)
//	baseline             baseline: --baseline                SEALMARK_BASELINE
//	lock                 lock: --lock                        SEALMARK_LOCK
//	timeouts.start       timeout: --timeout                  SEALMARK_TIMEOUT
//	timeouts.call        call-timeout: --call-timeout        SEALMARK_CALL_TIMEOUT
//	timeouts.probe       probe-timeout: --probe-timeout      SEALMARK_PROBE_TIMEOUT
//	timeouts.run         run-timeout: --run-timeout          SEALMARK_RUN_TIMEOUT
//	report.json          json: --json                        SEALMARK_JSON
//	report.sarif         sarif: --sarif                      SEALMARK_SARIF
//	report.junit         junit: --junit                      SEALMARK_JUNIT
//	db.admin_dsn         -                                   SEALMARK_DB_ADMIN_DSN
//
// Boolean flags and variables take true or false, durations Go's form
// ("30s", "1m30s"). Origins and Explain name the two flag-only settings
// --no-sandbox and --keep-sandbox.
//
// SEALMARK_CONFIG names the file (ConfigPath; --config wins). An environment
// variable set to the empty string counts as unset. SEALMARK_ACTIVE and
// SEALMARK_YES are errors: --active and --yes have no environment form. Other
// SEALMARK_* variables are ignored (SEALMARK_CANARY, SEALMARK_FAKE_API_KEY,
// SEALMARK_REPORT and SEALMARK_RUN belong to other parts of Sealmark). The
// flags config, active, yes, example, fixture and into are the CLI's own and
// Resolve ignores them; any other flag it does not know is an error.
package config
