package ui

import "fmt"

// goRead starts read in a goroutine of its own and returns what waits for
// its result, for a page whose independent reads should not wait on the
// database one after another. Every started read must be waited for
// before the handler returns: it uses the request's context. A panic in
// read comes back as its error, as the Recover middleware would have made
// of it in the handler's own goroutine.
func goRead[T any](read func() (T, error)) func() (T, error) {
	var v T
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		v, err = read()
	}()
	return func() (T, error) {
		<-done
		return v, err
	}
}
