package report

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestServerNameIgnoresSpellingAndDirectory(t *testing.T) {
	for want, spellings := range map[string][][]string{
		"notes-server": {
			{"./bin/notes-server"}, {"bin/notes-server"}, {"/home/ci/work/repo/bin/notes-server"},
			{"{cwd}/bin/notes-server"}, {"../repo/bin/notes-server"}, {`C:\work\bin\notes-server.exe`},
			{"./bin/notes-server-1.4.2"}, {"/opt/notes-server_v2"},
			{"npx", "-y", "@acme/notes-server@1.2.0"}, {"npx", "@acme/notes-server"},
			{"uvx", "notes-server==0.3"}, {"python3", "-m", "notes-server"}, {"python3.12", "-m", "notes_server"},
			{"node", "--import", "tsx", "src/notes-server.ts"}, {"node", "{cwd}/dist/notes-server.js", "{sandbox}"},
			{"go", "run", "./cmd/notes-server"}, {"go", "run", "example.com/x/notes-server@v1.2.0"},
			{"env", "DEBUG=1", "node", "/abs/notes-server.mjs"}, {"uv", "run", "--directory", "srv", "notes-server.py"},
		},
		"node": {{"node"}, {"/usr/bin/node", "--inspect"}},
		"s3":   {{"./s3"}},
	} {
		for _, sp := range spellings {
			if got := ServerName(sp[0], sp[1:], ""); got != want && !(want == "notes-server" && got == "notes_server") {
				t.Errorf("ServerName(%q) = %q, want %q", sp, got, want)
			}
		}
	}
	if got := ServerName("", nil, "http://127.0.0.1:{port}/mcp"); got != "http" {
		t.Errorf("a URL server: %q, want http", got)
	}
	if a, b := ServerName("./bin/notes", nil, ""), ServerName("./bin/files", nil, ""); a == b {
		t.Errorf("two servers share the name %q", a)
	}
}

func TestSARIFCategory(t *testing.T) {
	rep := sampleReport()
	ids := map[string]bool{}
	for _, cmd := range []string{"./bin/notes-server", "/abs/path/bin/notes-server", "bin/notes-server"} {
		rep.Server = Server{Command: cmd, Args: []string{"--root", "{sandbox}"}}
		doc, _ := writeSARIF(t, rep, SARIFOptions{ArtifactURI: "go.mod"})
		ids[doc.Runs[0].AutomationDetails.ID] = true
	}
	if len(ids) != 1 || !ids["sealmark/notes-server/"] {
		t.Errorf("automationDetails.id %v, want sealmark/notes-server/ however the command is spelled", ids)
	}
	for given, want := range map[string]string{"mcp/notes": "mcp/notes/", "mcp/notes/": "mcp/notes/", " notes ": "notes/", "/": "sealmark/notes-server/"} {
		doc, _ := writeSARIF(t, rep, SARIFOptions{ArtifactURI: "go.mod", Category: given})
		if got := doc.Runs[0].AutomationDetails.ID; got != want {
			t.Errorf("Category %q: automationDetails.id %q, want %q", given, got, want)
		}
	}
}

func TestSARIFSetCategoryAndArtifacts(t *testing.T) {
	var buf strings.Builder
	opts := SARIFOptions{ArtifactURI: "package.json", Category: "mcp", Servers: map[string]SARIFOptions{
		"files": {ArtifactURI: ".vscode/mcp.json"}, "broken": {NoArtifact: "no manifest"},
	}}
	if err := WriteSARIFSet(&buf, namedSample(), opts); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			AutomationDetails struct{ ID string }
			Invocations       []struct {
				ToolConfigurationNotifications []struct{ Message struct{ Text string } }
			}
			Results []struct {
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct{ URI, URIBaseID string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(buf.String()), &log); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range log.Runs {
		ids = append(ids, r.AutomationDetails.ID)
	}
	if strings.Join(ids, " ") != "mcp/files/ mcp/custom-one/ mcp/broken/" {
		t.Errorf("ids %v, want the category prefix and each server's name", ids)
	}
	if loc := log.Runs[0].Results[0].Locations[0].PhysicalLocation; loc == nil || loc.ArtifactLocation.URI != ".vscode/mcp.json" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
		t.Errorf("files: location %+v, want its own config under %%SRCROOT%%", loc)
	}
	if loc := log.Runs[1].Results[0].Locations[0].PhysicalLocation; loc == nil || loc.ArtifactLocation.URI != "package.json" {
		t.Errorf("custom/one: location %+v, want the shared manifest", loc)
	}
	notes := log.Runs[2].Invocations[0].ToolConfigurationNotifications
	if len(notes) == 0 || !strings.Contains(notes[len(notes)-1].Message.Text, "results have no file location: no manifest") {
		t.Errorf("broken: notifications %+v, want why its results have no file", notes)
	}
}

func TestSARIFNoArtifact(t *testing.T) {
	doc, raw := writeSARIF(t, sampleReport(), SARIFOptions{NoArtifact: "no config file was read, and no project manifest"})
	if strings.Contains(string(raw), "physicalLocation") {
		t.Error("a result names a file though there is none")
	}
	if len(doc.Runs[0].Results) == 0 {
		t.Fatal("the sample has no results")
	}
	if !strings.Contains(string(raw), "results have no file location: no config file was read") {
		t.Errorf("the log does not say why its results name no file:\n%s", raw)
	}
}
