package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// envPprofListen names the loopback address of Go's profiler
// (net/http/pprof), for measuring the running binary (bench/NOTES.md);
// unset, as in any deployment, it is off. Only a loopback address is
// accepted: profiles show the process's memory and code.
const envPprofListen = "CCWALLET_PPROF_LISTEN"

// startPprof serves the profiler on env's address until ctx ends.
func startPprof(ctx context.Context, env envVars, log *slog.Logger) {
	addr := env[envPprofListen]
	if addr == "" {
		return
	}
	if !loopbackAddr(addr) {
		log.Warn(envPprofListen+" ignored: not a loopback IP address and port", "addr", addr)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Warn(envPprofListen+" ignored", "err", err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Warn("profiler on (development only)", "addr", ln.Addr().String())
	go srv.Serve(ln)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
}

// loopbackAddr reports whether addr is a loopback IP and a port: no
// host name (it could resolve elsewhere), no empty host (every
// interface).
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}
