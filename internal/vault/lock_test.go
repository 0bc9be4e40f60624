package vault

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// appenderEnv names the vault folder for TestCrossProcessAppender, the
// second process of TestCrossProcessAppendsSurviveReplaces.
const appenderEnv = "LANGSPEC_VAULT_TEST_APPENDER_DIR"

const (
	xprocTarget    = "notes/n.md"
	xprocWorkers   = 4  // appends in flight at once in the appender
	xprocAppends   = 50 // per worker: 200 in all
	xprocReplaces  = 100
	xprocMaxRounds = 20_000 // replaces stop here even if the appender hangs
)

// TestCrossProcessAppender is the appender process of
// TestCrossProcessAppendsSurviveReplaces, which runs the test binary again
// with only this test and appenderEnv set. On its own it skips. It prints
// "ready", waits for a line on stdin, then appends from xprocWorkers
// goroutines, printing "ack <line>" for each append reported ok and
// "err <error>" for each failure.
func TestCrossProcessAppender(t *testing.T) {
	dir := os.Getenv(appenderEnv)
	if dir == "" {
		t.Skip("the second process of TestCrossProcessAppendsSurviveReplaces")
	}
	v, err := Open(dir, Options{})
	if err != nil {
		fmt.Printf("err %v\n", err)
		return
	}
	defer v.Close()
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Printf("err stdin: %v\n", err)
		return
	}
	var mu sync.Mutex // one report line at a time
	var wg sync.WaitGroup
	for w := range xprocWorkers {
		wg.Go(func() {
			for i := range xprocAppends {
				line := fmt.Sprintf("a%d-%d", w, i)
				_, err := v.Append(xprocTarget, []byte(line+"\n"))
				mu.Lock()
				if err != nil {
					fmt.Printf("err %v\n", err)
				} else {
					fmt.Printf("ack %s\n", line)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestCrossProcessAppendsSurviveReplaces: two real processes on one vault,
// as two `langspec serve` would be. The other process appends 200 lines, 4
// at a time, while this one makes identity replaces (HEAD -> HEAD, expected
// 1), which read the file, write a temp file and rename it over the file.
// Every append reported ok must be in the file exactly once: a replace that
// read the file before an append landed must not rename over it.
func TestCrossProcessAppendsSurviveReplaces(t *testing.T) {
	if !crossProcessLocks {
		t.Skip("no cross-process write lock on " + runtime.GOOS)
	}
	e := newEnv(t, Options{})
	if _, err := e.v.Create(xprocTarget, []byte("HEAD\n")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrossProcessAppender$", "-test.count=1", "-test.v=false")
	cmd.Env = append(os.Environ(), appenderEnv+"="+e.dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewScanner(stdout)
	for out.Scan() && out.Text() != "ready" {
		t.Logf("appender: %s", out.Text())
	}
	if _, err := io.WriteString(stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	// Read the appender's reports while replacing; done closes at its EOF.
	acked := map[string]bool{}
	var failures []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for out.Scan() {
			switch line := out.Text(); {
			case strings.HasPrefix(line, "ack "):
				acked[strings.TrimPrefix(line, "ack ")] = true
			case strings.HasPrefix(line, "err "):
				failures = append(failures, line)
			}
		}
	}()
	replaces := 0
	for running := true; (replaces < xprocReplaces || running) && replaces < xprocMaxRounds; replaces++ {
		if _, err := e.v.Replace(xprocTarget, "HEAD\n", "HEAD\n", 1); err != nil {
			t.Fatalf("replace %d: %v", replaces, err)
		}
		select {
		case <-done:
			running = false
		default:
		}
	}
	<-done
	if err := cmd.Wait(); err != nil {
		t.Fatalf("appender: %v", err)
	}
	for _, f := range failures {
		t.Errorf("appender: %s", f)
	}
	if len(acked) != xprocWorkers*xprocAppends {
		t.Errorf("%d appends acknowledged, want %d", len(acked), xprocWorkers*xprocAppends)
	}
	b, err := e.v.ReadFile(xprocTarget)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		seen[line]++
	}
	lost := 0
	for line := range acked {
		if seen[line] != 1 {
			lost++
		}
	}
	if lost > 0 || seen["HEAD"] != 1 || len(seen) != len(acked)+1 {
		t.Errorf("after %d replaces: %d of %d acknowledged appends missing or repeated; HEAD %d times; %d distinct lines",
			replaces, lost, len(acked), seen["HEAD"], len(seen))
	}
	t.Logf("%d replaces, %d appends", replaces, len(acked))
}
