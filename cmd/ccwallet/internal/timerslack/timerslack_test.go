package timerslack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// envHelper makes the test binary, started again, be helper.
const envHelper = "CCWALLET_TEST_SLACK_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(envHelper) != "" {
		helper()
	}
	os.Exit(m.Run())
}

// helper applies the slack as serve's start does, saying "start" each
// time it begins (again after the exec), then its thread's slack and each
// thread's it may read (another thread's needs CAP_SYS_NICE).
func helper() {
	fmt.Println("start")
	d, err := Setting(os.Getenv)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	Apply(d, os.Stdout)
	runtime.LockOSThread()
	fmt.Println("slack", int64(Now()))
	tasks, _ := filepath.Glob("/proc/self/task/*")
	for _, task := range tasks {
		if b, err := os.ReadFile("/proc/" + filepath.Base(task) + "/timerslack_ns"); err == nil {
			fmt.Println("thread", strings.TrimSpace(string(b)))
		}
	}
	os.Exit(0)
}

func TestSetting(t *testing.T) {
	for v, want := range map[string]time.Duration{"": time.Millisecond, "0": 0, "250us": 250 * time.Microsecond, "2ms": 2 * time.Millisecond} {
		got, err := Setting(func(string) string { return v })
		if err != nil || got != want {
			t.Errorf("%s=%q: %v, %v; want %v", Env, v, got, err, want)
		}
	}
	for _, v := range []string{"fast", "-1ms", "1ns", "2s", "1000"} {
		if _, err := Setting(func(string) string { return v }); err == nil || !strings.Contains(err.Error(), Env) {
			t.Errorf("%s=%q: %v, want an error naming the setting", Env, v, err)
		}
	}
}

func TestCommand(t *testing.T) {
	for args, want := range map[string]string{"": "serve", "--db x": "serve", "serve --db x": "serve", "migrate": "migrate", "-h": "help", "--help": "help"} {
		if got, _ := Command(strings.Fields(args)); got != want {
			t.Errorf("Command(%q) = %q, want %q", args, got, want)
		}
	}
}

func TestApplyReachesEveryThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("timer slack is Linux's")
	}
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
