package timerslack

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
