package timerslack

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestApplyReachesEveryThread(t *testing.T) {
	run := func(slack string) []string {
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), envHelper+"=1", Env+"="+slack)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper with %s=%s: %v\n%s", Env, slack, err, out)
		}
		return strings.Fields(string(out))
	}
	out := run("3ms")
	if len(out) < 4 || out[0] != "start" || out[1] != "start" || out[2] != "slack" || out[3] != "3000000" {
		t.Fatalf("with 3ms: %q, want two starts (the process ran itself again) and the slack 3000000", out)
	}
	threads := 0
	for i := 4; i+1 < len(out); i += 2 {
		threads++
		if out[i] != "thread" || out[i+1] != "3000000" {
			t.Errorf("with 3ms a thread's slack is %q %q: %q", out[i], out[i+1], out)
		}
	}
	t.Logf("%d threads read", threads)
	out = run("0")
	if len(out) < 3 || out[0] != "start" || out[1] != "slack" {
		t.Fatalf("with 0: %q, want one start (no exec)", out)
	}
	if n, _ := strconv.Atoi(out[2]); n == 3000000 {
		t.Errorf("with 0 the slack is still 3ms: %q", out)
	}
}
