package sched

// Held reports whether the calling goroutine holds w (identity.go).
func Held(w *Worker) bool { return w.held() }
