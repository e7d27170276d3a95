package core_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// mcpgoVerb turns the test binary into a stdio server built on mcp-go
// v1.2.1 (mcpgoDispatch): one read-only tool, echo. With -hold, a hook
// holds a request that was followed within 20 ms by another one until
// 300 ms after it arrived, so the later one is answered first, as the
// concurrent fixture does; mcp-go serves every request in a goroutine of
// its own, so nothing else waits.
const mcpgoVerb = "__sealmark-mcpgo"

const (
	mcpgoQuiet = 20 * time.Millisecond
	mcpgoHold  = 300 * time.Millisecond
)

// mcpgoDispatch serves and exits when the binary was started with mcpgoVerb.
func mcpgoDispatch() {
	if len(os.Args) < 2 || os.Args[1] != mcpgoVerb {
		return
	}
	hold := len(os.Args) > 2 && os.Args[2] == "-hold"
	arrivals := &arrivalLog{at: map[string]arrival{}}
	hooks := &mcpserver.Hooks{}
	if hold {
		hooks.AddBeforeAny(func(_ context.Context, id any, _ mcp.MCPMethod, _ any) { arrivals.hold(id) })
	}
	s := mcpserver.NewMCPServer("sealmark-mcpgo", "1.0.0", mcpserver.WithToolCapabilities(false), mcpserver.WithHooks(hooks))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo a text."), mcp.WithString("text", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	pr, pw := io.Pipe()
	go arrivals.copy(pw, os.Stdin)
	err := mcpserver.NewStdioServer(s).Listen(context.Background(), pr, os.Stdout)
	if err != nil && err != io.EOF && err != context.Canceled {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// arrival is when the line with an id was read, and how many such lines
// came before it.
type arrival struct {
	n  int
	at time.Time
}

// arrivalLog notes when each line with an id came in, read on its way to
// mcp-go's reader.
type arrivalLog struct {
	mu sync.Mutex
	n  int
	at map[string]arrival
}

// copy passes stdin to w line by line, noting the arrival of each id.
func (a *arrivalLog) copy(w *io.PipeWriter, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil {
			a.mu.Lock()
			a.n++
			a.at[idKey(m.ID)] = arrival{a.n, time.Now()}
			a.mu.Unlock()
		}
		if _, err := w.Write(append(sc.Bytes(), '\n')); err != nil {
			return
		}
	}
	w.CloseWithError(sc.Err())
}

// hold waits, for the request with id, as -hold describes.
func (a *arrivalLog) hold(id any) {
	a.mu.Lock()
	mine, ok := a.at[idKey(id)]
	a.mu.Unlock()
	if !ok {
		return
	}
	time.Sleep(time.Until(mine.at.Add(mcpgoQuiet)))
	a.mu.Lock()
	followed := a.n > mine.n
	a.mu.Unlock()
	if followed {
		time.Sleep(time.Until(mine.at.Add(mcpgoHold)))
	}
}

// idKey names an id the same whether it came decoded by encoding/json or
// wrapped by mcp-go.
func idKey(id any) string {
	if r, ok := id.(mcp.RequestId); ok {
		id = r.Value()
	}
	if r, ok := id.(*mcp.RequestId); ok && r != nil {
		id = r.Value()
	}
	switch v := id.(type) {
	case string:
		return "s:" + v
	case float64:
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64)
	case int64:
		return "n:" + strconv.FormatFloat(float64(v), 'g', -1, 64)
	case int:
		return "n:" + strconv.FormatFloat(float64(v), 'g', -1, 64)
	case json.Number:
		f, _ := v.Float64()
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(id)
}
