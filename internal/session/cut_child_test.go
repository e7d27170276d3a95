package session_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// hugePad is how long the child's huge answers are: past the 8 MiB message
// limit. legalPad is a large answer within it.
const (
	hugePad  = 9 << 20
	legalPad = 7 << 20
)

// hugeChild is a server whose answer to tools/list is what the cursor
// asks for: "id-first" (9 MiB, the id before the payload), "id-last" (the
// id after it), "endless" (a line that never ends), "notification" (a
// 9 MiB notification, then an ordinary answer), "legal" (7 MiB, within
// the limit). It never answers "hold"; anything else gets an empty result.
func hugeChild() {
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<16), 1<<20)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		id := string(msg.ID)
		switch {
		case msg.Method == "hold":
			continue
		case msg.Method != "tools/list":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
		case msg.Params.Cursor == "id-first":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"pad":"%s"}}`+"\n", id, strings.Repeat("p", hugePad))
		case msg.Params.Cursor == "id-last":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","result":{"tools":[],"pad":"%s"},"id":%s}`+"\n", strings.Repeat("p", hugePad), id)
		case msg.Params.Cursor == "legal":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"pad":"%s"}}`+"\n", id, strings.Repeat("p", legalPad))
		case msg.Params.Cursor == "notification":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%s"}}`+"\n", strings.Repeat("p", hugePad))
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`+"\n", id)
		case msg.Params.Cursor == "endless":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"pad":"`, id)
			chunk := strings.Repeat("p", 1<<16)
			for {
				if _, err := out.WriteString(chunk); err != nil {
					return // stdout closed: the harness stopped the child
				}
			}
		}
		if out.Flush() != nil {
			return
		}
	}
}
