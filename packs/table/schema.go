package table

// Schema is the JSON Schema (draft 2020-12) of the probes: list in
// sealmark.yaml, for the config file's schema and for editors. It accepts
// what Rows accepts, as far as a schema can tell: placeholders, regular
// expressions and duplicate names are checked by Pack.
const Schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "description": "The server's own probes: each row calls one tool with the given arguments and checks what must hold, with the same sandbox and observers as the built-in packs. The rows run as a pack of their own, reported as the user's.",
  "type": ["array", "null"],
  "items": {
    "type": "object",
    "additionalProperties": false,
    "required": ["name", "tool", "expect"],
    "properties": {
      "name": {"description": "kebab-case; the go test -run segment and the default id USER-<NAME>", "type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
      "id": {"description": "The stable id in reports and baselines (default USER- and the name in upper case).", "type": "string", "pattern": "^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$"},
      "tool": {"description": "The tool to call; a tool the server does not offer fails the row.", "type": "string", "minLength": 1},
      "args": {"description": "The call's arguments. Strings may hold placeholders: {sandbox} {sandbox_home} {cwd} {port} {listener} {upstream} {token} {canary_file} {canary_dir} {root_evil} {link_file} {link_dir} {ok_file} {ok_token}.", "type": ["object", "null"]},
      "expect": {
        "description": "What must hold; each broken expectation is a finding of its own.",
        "type": "array",
        "minItems": 1,
        "items": {
          "oneOf": [
            {"type": "string", "enum": ["refused", "succeeds", "no_canary", "no_file_changes_outside_root", "no_connection", "no_program_ran", "no_process_outlived"]},
            {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": false, "properties": {
              "refused": {"type": "null"},
              "succeeds": {"type": "null"},
              "no_canary": {"type": "null"},
              "no_file_changes_outside_root": {"type": "null"},
              "no_connection": {"type": "null"},
              "no_program_ran": {"type": "null"},
              "no_process_outlived": {"type": "null"},
              "contains": {"description": "The response's text contains this text (placeholders expand).", "type": "string", "minLength": 1},
              "not_contains": {"description": "The response's text does not contain this text.", "type": "string", "minLength": 1},
              "matches": {"description": "The response's text matches this RE2 regular expression.", "type": "string"},
              "not_matches": {"description": "The response's text does not match this RE2 regular expression.", "type": "string"},
              "not_ran": {"description": "This program (a base name such as sm-canary) did not run during the call.", "type": "string", "pattern": "^[^/\\\\ ]+$"},
              "file_changes": {"description": "Exactly these paths changed: relative to the sandbox top (root/x) or starting with a placeholder ({sandbox}/x). An empty list: nothing changed.", "type": ["array", "null"], "items": {"type": "string", "minLength": 1}},
              "within": {"description": "The answer came within this Go duration (5s, 500ms).", "type": "string", "pattern": "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$"}
            }}
          ]
        }
      },
      "severity": {"description": "Severity of the row's findings (default high).", "type": "string", "enum": ["low", "medium", "high", "critical"]},
      "doc": {"description": "The rule in one line; default the tool and the expectations.", "type": "string", "pattern": "^[^\\n\\r]*$"}
    }
  }
}`
