//go:build ignore

// gen_joins writes zjoin.go: every typed form of the job type that forks
// or joins (Join, JoinArgs, JoinSlice, Spawn and Spawned.Join, a Future's
// fork, and the fork of a group task) from the one skeleton below, as the sorts of package
// parallel are written from one template. A generic function would be the
// other way to write the skeleton once, but each step it would call
// through a function value or a generic method costs the fork path a call
// the inliner cannot remove (the fork and the join are a few nanoseconds,
// and the budget of an inlined function is too small for them); a
// generated copy per form costs nothing. Run it with
//
//	go generate ./internal/sched
//
// after editing the skeleton or a form. TestGeneratedJoinsAreFresh fails
// when the committed file differs from what this program writes.
//
// The skeleton, in job.go's steps:
//
//	fork: reuse the job found in the slot the fork fills if it is of the
//	    right type (J4; reusableMoved after a D5a), else allocate one; fill
//	    it; push it (F1) and publish it if its deque exposes nothing or
//	    another worker wants work (E1);
//	join: defer the test that turns a panic or Goexit unwinding the join
//	    into the join's panic, after dropping or waiting for the forked
//	    half (unwound); run the first half here; re-check that the worker
//	    is still this goroutine's (stall.md, Y6: the first half may have
//	    blocked, and the worker been handed over); take the second half
//	    back and run it here (J1, J2) or wait for it to finish elsewhere
//	    (J3) and read its outcome; recycle the job (J4).
package main

import (
	"bytes"
	"flag"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"text/template"
)

// form is one typed form: the text the skeleton needs of it. Statements
// are Go source, indented by the template.
type form struct {
	Doc      string // the doc comment, // included
	Sig      string // the signature after func: name, type parameters, parameters, results
	Prologue string // from the function's start to the fork: w, checks
	Job      string // the job type, instantiated
	Init     string // the fields of a new job, as a composite literal's body
	Fill     string // the statements that fill a recycled job
	Forks    bool   // the form is a fork alone: it returns after the fork
	Return   string // a fork alone: what it returns
	First    string // a join: the statements that run the first half here
	Inline   string // a join: the statements that run the second half here, once taken back (j recycled first)
	Take     string // a join: the statements that read a stolen job's result (in a func literal)
	Epilogue string // what comes after both halves of a join, or after a fork alone, before it returns
	Unwind   bool   // a join of two halves: a panic unwinding the first half drops or waits for the second (unwound)
}

var forms = []form{
	{
		Doc: `// Join runs fa and fb, potentially in parallel, and returns both results:
// forkjoin.Join, which documents it (and whose messages its checks use).`,
		Sig: `Join[W, A, B any](pw *W, fa func(*W) A, fb func(*W) B) (a A, b B)`,
		Prologue: `w := (*Worker)(unsafe.Pointer(pw))
if w == nil {
	panic("forkjoin: Join with a nil *pool.Worker")
}
if fa == nil || fb == nil {
	panic("forkjoin: Join with a nil function")
}
if w.checkDue() {
	w.checkFork("forkjoin.Join") // panics, naming the mistake (debug.go)
}`,
		Job:   `funcJob[W, B]`,
		Init:  `f: fb`,
		Fill:  `j.f = fb`,
		First: `a = fa(pw)`,
		Inline: `f := j.f
j.f = nil
w.recycle(&j.task)
b = f(pw)`,
		Take:     `b, j.f, j.res = j.res, nil, *new(B)`,
		Epilogue: `return a, b`,
		Unwind:   true,
	},
	{
		Doc: `// JoinArgs calls f(w, a) and f(w, b), potentially in parallel:
// forkjoin.JoinArgs, which documents it (and whose messages its checks
// use).`,
		Sig: `JoinArgs[W, A, R any](pw *W, f func(*W, A) R, a, b A) (ra, rb R)`,
		Prologue: `w := (*Worker)(unsafe.Pointer(pw))
if w == nil {
	panic("forkjoin: JoinArgs with a nil *pool.Worker")
}
if f == nil {
	panic("forkjoin: JoinArgs with a nil function")
}
if w.checkDue() {
	w.checkFork("forkjoin.JoinArgs") // panics, naming the mistake (debug.go)
}`,
		Job:   `argJob[W, A, R]`,
		Init:  `f: f, arg: b`,
		Fill:  `j.f, j.arg = f, b`,
		First: `ra = f(pw, a)`,
		Inline: `arg := j.arg
j.f, j.arg = nil, *new(A)
w.recycle(&j.task)
rb = f(pw, arg)`,
		Take:     `rb, j.f, j.arg, j.res = j.res, nil, *new(A), *new(R)`,
		Epilogue: `return ra, rb`,
		Unwind:   true,
	},
	{
		Doc: `// JoinSlice calls f(w, a) for every a of args, of length >= 1, potentially
// in parallel: the right half forked, the left half here, recursively.
// With out != nil the results go to out, in order (forkjoin.JoinAll);
// otherwise they are folded with combine, in order, and returned
// (forkjoin.JoinReduce).`,
		Sig: `JoinSlice[W, A, R any](w *Worker, f func(*W, A) R, args []A, out []R, combine func(a, b R) R) (r R)`,
		Prologue: `if len(args) == 1 {
	r = f((*W)(unsafe.Pointer(w)), args[0])
	if out != nil {
		out[0] = r
	}
	return r
}
if w.checkDue() {
	w.checkFork("forkjoin.JoinAll or JoinReduce") // panics, naming the mistake (debug.go)
}
mid := len(args) / 2
var lout, rout []R
if out != nil {
	lout, rout = out[:mid], out[mid:]
}`,
		Job:  `sliceJob[W, A, R]`,
		Init: `f: f, args: args[mid:], out: rout, combine: combine`,
		Fill: `j.f, j.args, j.out, j.combine = f, args[mid:], rout, combine`,
		First: `left := JoinSlice(w, f, args[:mid], lout, combine)
var right R`,
		Inline: `rargs := j.args
j.args, j.out = nil, nil
w.recycle(&j.task)
right = JoinSlice(w, f, rargs, rout, combine)`,
		Take: `right, j.args, j.out, j.res = j.res, nil, nil, *new(R)`,
		Epilogue: `if combine != nil {
	r = combine(left, right)
}
return r`,
		Unwind: true,
	},
	{
		Doc: `// Spawn forks f onto pw's worker (F1, E1), recycling the job found in the
// slot it fills (J4): forkjoin.Spawn, which documents it (and whose
// messages its checks use).`,
		Sig: `Spawn[W, T any](pw *W, f func(*W) T) Spawned[W, T]`,
		Prologue: `w := (*Worker)(unsafe.Pointer(pw))
if w == nil {
	panic("forkjoin: Spawn with a nil *pool.Worker")
}
if f == nil {
	panic("forkjoin: Spawn with a nil function")
}
if w.checkDue() {
	w.checkFork("forkjoin.Spawn") // panics, naming the mistake (debug.go)
}`,
		Job:  `spawnJob[W, T]`,
		Init: `f: f, owner: w, gen: 1`,
		Fill: `j.f = f
j.gen++ // odd: forked`,
		Forks:  true,
		Return: `Spawned[W, T]{j, j.gen}`,
	},
	{
		Doc: `// Join returns the result of the fork s, running it here if it is still
// at the bottom of pw's deque (J1) and waiting for it otherwise (J3); it
// re-raises its panic. pw must be the worker that forked it, and s must
// not have been joined before.`,
		Sig: `(s Spawned[W, T]) Join(pw *W) (r T)`,
		Prologue: `w := (*Worker)(unsafe.Pointer(pw))
j := s.j
switch {
case j == nil:
	panic("forkjoin: Join of a zero Task: a Task comes from Spawn")
case w == nil:
	panic("forkjoin: Task.Join with a nil *pool.Worker")
case j.owner != w:
	panic("forkjoin: Task.Join with another worker than the one that spawned it: a Task is joined by the " +
		"task that spawned it, on its worker; use Fork and Future.Join to join from elsewhere")
case j.gen != s.gen:
	panic("forkjoin: Task joined twice: a Task is joined exactly once; use Fork and Future.Join to read a " +
		"result more than once")
}
if w.checkDue() {
	w.checkFork("forkjoin.Task.Join") // panics, naming the mistake (debug.go)
}
j.gen++ // even: joined`,
		Inline: `f := j.f
j.f = nil
w.recycle(&j.task)
r = f(pw)`,
		Take:     `r, j.f, j.res = j.res, nil, *new(T)`,
		Epilogue: `return r`,
	},
	{
		Doc: `// Fork makes fu, a Future's zero value, the future of f forked onto pw's
// worker (F1, E1), recycling the job found in the slot it fills (J4;
// future.md, Q1): forkjoin.Fork, which documents it (and whose messages
// its checks use). Nothing of fj's points at fu: the job does not know
// it, so that fu may live in its caller's frame.`,
		Sig: `(fu *FutureState[W, T]) Fork(pw *W, f func(*W) T)`,
		Prologue: `w := (*Worker)(unsafe.Pointer(pw))
if w == nil {
	panic("forkjoin: Fork with a nil *pool.Worker")
}
if f == nil {
	panic("forkjoin: Fork with a nil function")
}
if w.checkDue() {
	w.checkFork("forkjoin.Fork") // panics, naming the mistake (debug.go)
}`,
		Job:      `Future[W, T]`,
		Init:     `f: f`,
		Fill:     `j.f = f`,
		Forks:    true,
		Epilogue: `fu.j, fu.owner = j, w`,
	},
	{
		Doc: `// forkGroupTask forks a task of g onto w that runs f(w') or fe(w') on
// whichever worker w' takes it (exactly one is non-nil), recycling the
// task object found in the slot it fills (J4): Go's fork, once g has
// counted it (local: in its home's count, G7).`,
		Sig:   `forkGroupTask(w *Worker, g *Group, f func(*Worker), fe func(*Worker) error, local bool)`,
		Job:   `groupTask`,
		Init:  `g: g, f: f, fe: fe, owner: w, local: local`,
		Fill:  `j.g, j.f, j.fe, j.owner, j.local = g, f, fe, w, local`,
		Forks: true,
	},
}

const skeleton = `// Code generated by gen_joins.go; DO NOT EDIT.

package sched

import "unsafe"

// The typed forms that fork or join, from the one skeleton in
// gen_joins.go (job.go states the steps they cite).
{{range .}}
{{.Doc}}
func {{.Sig}} {
	{{.Prologue}}
	{{- if .Job}}
	var j *{{.Job}}
	if t := w.reusable(); t != nil {
		j, _ = t.r.(*{{.Job}})
	}
	if j == nil {
		if t := w.reusableMoved(); t != nil { // J4, after a D5a
			j, _ = t.r.(*{{.Job}})
		}
	}
	if j == nil {
		j = &{{.Job}}{ {{.Init}} }
		j.bind(j)
		w.fork(&j.task)
	} else {
		{{.Fill}}
		if !w.reforkFast(&j.task) {
			w.refork(&j.task)
		}
	}
	{{- end}}
	{{- if .Forks}}
	{{- if .Epilogue}}
	{{.Epilogue}}
	{{- end}}
	raceHandOff(w) // Y6: the program's code runs next
	{{- if .Return}}
	return {{.Return}}
	{{- end}}
	{{- else}}
	{{- if .Unwind}}
	g := w.Holder() // Y6: the program's code runs next
	state := forked
	defer func() {
		if state != joined {
			w.Regain(g) // Y6
			w.unwound(&j.job, state, recover())
		}
	}()
	{{.First}}
	state = joining
	w.Regain(g) // Y6: the first half may have blocked
	{{- end}}
	if w.takeBackFast(&j.job) || w.takeBack(&j.job) {
		// J1: taken back. Recycled before it runs here: the first fork
		// inside it uses this same slot and reuses j (J4).
		w.counts[countExecuted]++
		{{.Inline}}
	} else if p := w.stolen(&j.job, func() { {{.Take}} }); p != nil {
		panic(p.Err)
	}
	{{- if .Unwind}}
	state = joined
	{{- end}}
	{{.Epilogue}}
	{{- end}}
}
{{end}}`

func main() {
	out := flag.String("o", ".", "the directory to write zjoin.go in")
	flag.Parse()
	var b bytes.Buffer
	if err := template.Must(template.New("zjoin").Parse(skeleton)).Execute(&b, forms); err != nil {
		log.Fatal(err)
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("%v\n%s", err, b.Bytes())
	}
	if err := os.WriteFile(filepath.Join(*out, "zjoin.go"), src, 0o644); err != nil {
		log.Fatal(err)
	}
}
