// Command porcupine_peer checks register histories with Porcupine
// (github.com/anishathalye/porcupine), for fisheye's peer benchmark
// (bench/bench_porcupine.py builds and runs it).
//
// Usage: porcupine_peer [-timeout SECONDS] FILE...
//
// A FILE ending in .log is a Jepsen etcd log (one register: reads, writes and
// cas, nil for the initial value); any other FILE is a fisheye JSON history of
// registers (docs/contract.md sections 1 and 7.1: "t" intervals, "maybe"
// operations that never returned, successful cas only, initial value 0),
// partitioned by register as Porcupine allows. An operation that never returned (or timed out) may have taken
// effect at any time after its invocation: Porcupine's own treatment of
// indeterminate operations in its etcd test.
//
// Prints one line per file, "FILE<TAB>VERDICT<TAB>SECONDS" (VERDICT: ok,
// illegal or unknown, Porcupine's three answers), then "total<TAB>SECONDS".
// SECONDS is the time of Porcupine's check alone, parsing excluded.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

const (
	read = iota
	write
	cas
)

const absent = math.MinInt64 // the value of a register never written (Jepsen's nil)

type input struct {
	kind     int
	register string
	value    int // written (write, cas's new value)
	old      int // cas's expected value
}

type output struct {
	value   int  // read
	ok      bool // cas
	unknown bool // never returned: may or may not have taken effect
}

func registerModel(initial int) porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			parts := map[string][]porcupine.Operation{}
			var order []string
			for _, op := range history {
				r := op.Input.(input).register
				if _, seen := parts[r]; !seen {
					order = append(order, r)
				}
				parts[r] = append(parts[r], op)
			}
			out := make([][]porcupine.Operation, 0, len(order))
			for _, r := range order {
				out = append(out, parts[r])
			}
			return out
		},
		Init: func() interface{} { return initial },
		Step: func(state, in, out interface{}) (bool, interface{}) {
			st := state.(int)
			i, o := in.(input), out.(output)
			switch i.kind {
			case read:
				return o.unknown || o.value == st, st
			case write:
				return true, i.value
			default:
				next := st
				if i.old == st {
					next = i.value
				}
				return o.unknown || (o.ok == (i.old == st)), next
			}
		},
		Equal: func(a, b interface{}) bool { return a.(int) == b.(int) },
		Hash:  func(s interface{}) uint64 { return uint64(s.(int)) },
	}
}

// jepsenLog reads a Jepsen etcd log: "INFO jepsen.util - PROCESS :TYPE :F VALUE",
// fields separated by any whitespace.
func jepsenLog(path string) ([]porcupine.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var events []porcupine.Event
	pending := map[int]int{} // process -> id of its running operation
	var open []int           // ids of the operations that never returned
	id := 0
	number := func(s string) int {
		if s == "nil" {
			return absent
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			panic(fmt.Sprintf("%s: not a number: %q", path, s))
		}
		return v
	}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 6 || fields[1] != "jepsen.util" {
			continue
		}
		proc, err := strconv.Atoi(fields[3])
		if err != nil {
			continue
		}
		typ, fn := fields[4], fields[5]
		rest := strings.Trim(strings.Join(fields[6:], " "), "[]")
		args := strings.Fields(rest)
		if typ == ":invoke" {
			in := input{register: "x"}
			switch fn {
			case ":read":
				in.kind = read
			case ":write":
				in.kind, in.value = write, number(args[0])
			case ":cas":
				in.kind, in.old, in.value = cas, number(args[0]), number(args[1])
			default:
				continue
			}
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: in, Id: id})
			pending[proc] = id
			id++
			continue
		}
		call, running := pending[proc]
		if !running {
			continue
		}
		if typ == ":info" { // indeterminate: it may take effect at any later time, so it never returns
			delete(pending, proc)
			open = append(open, call)
			continue
		}
		var out output
		switch {
		case typ == ":ok" && fn == ":read":
			out.value = number(args[0])
		case typ == ":ok" && fn == ":cas":
			out.ok = true
		case typ == ":fail" && fn == ":cas":
			out.ok = false
		case typ == ":ok":
		default: // a read that failed (timed out): it returns nothing to check
			out.unknown = true
		}
		delete(pending, proc)
		events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: out, Id: call})
	}
	for _, call := range pending {
		open = append(open, call)
	}
	for _, call := range open { // returned after everything else
		events = append(events, porcupine.Event{ClientId: -1, Kind: porcupine.ReturnEvent,
			Value: output{unknown: true}, Id: call})
	}
	return events, scanner.Err()
}

type historyFile struct {
	Processes []string                       `json:"processes"`
	Initial   map[string]int                 `json:"initial"`
	History   map[string][][]json.RawMessage `json:"history"`
}

// fisheyeHistory reads a fisheye JSON history of registers with real time.
func fisheyeHistory(path string) ([]porcupine.Operation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h historyFile
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, err
	}
	if len(h.Initial) > 0 {
		return nil, fmt.Errorf("initial values other than 0 are not supported")
	}
	const scale = 1e6
	var ops []porcupine.Operation
	for client, p := range h.Processes {
		for _, raw := range h.History[p] {
			var kind, register string
			if err := json.Unmarshal(raw[0], &kind); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(raw[1], &register); err != nil {
				return nil, err
			}
			var ext struct {
				T     []*float64 `json:"t"`
				Maybe bool       `json:"maybe"`
			}
			if len(raw) > 3 {
				if err := json.Unmarshal(raw[3], &ext); err != nil {
					return nil, err
				}
			}
			if len(ext.T) != 2 || ext.T[0] == nil {
				return nil, fmt.Errorf("%s: an operation of %s has no real time", path, p)
			}
			in := input{register: register}
			out := output{ok: true}
			switch kind {
			case "r":
				in.kind = read
				if err := json.Unmarshal(raw[2], &out.value); err != nil {
					return nil, err
				}
			case "w":
				in.kind = write
				if err := json.Unmarshal(raw[2], &in.value); err != nil {
					return nil, err
				}
			case "cas":
				var pair [2]int
				if err := json.Unmarshal(raw[2], &pair); err != nil {
					return nil, err
				}
				in.kind, in.old, in.value = cas, pair[0], pair[1]
			default:
				return nil, fmt.Errorf("%s: unknown operation %q", path, kind)
			}
			ret := int64(math.MaxInt64)
			if ext.T[1] != nil && !ext.Maybe {
				ret = int64(math.Round(*ext.T[1] * scale))
			} else {
				out.unknown = true
			}
			ops = append(ops, porcupine.Operation{ClientId: client, Input: in, Output: out,
				Call: int64(math.Round(*ext.T[0] * scale)), Return: ret})
		}
	}
	return ops, nil
}

func main() {
	timeout := flag.Float64("timeout", 0, "seconds per file (0: none); unknown when it runs out")
	flag.Parse()
	limit := time.Duration(*timeout * float64(time.Second))
	var total time.Duration
	for _, path := range flag.Args() {
		var verdict porcupine.CheckResult
		var spent time.Duration
		if filepath.Ext(path) == ".log" {
			events, err := jepsenLog(path)
			if err != nil {
				fmt.Fprintf(os.Stderr, "porcupine_peer: %s: %v\n", path, err)
				os.Exit(2)
			}
			start := time.Now()
			verdict = porcupine.CheckEventsTimeout(registerModel(absent), events, limit)
			spent = time.Since(start)
		} else {
			ops, err := fisheyeHistory(path)
			if err != nil {
				fmt.Fprintf(os.Stderr, "porcupine_peer: %s: %v\n", path, err)
				os.Exit(2)
			}
			start := time.Now()
			verdict = porcupine.CheckOperationsTimeout(registerModel(0), ops, limit)
			spent = time.Since(start)
		}
		total += spent
		fmt.Printf("%s\t%s\t%.6f\n", path, verdict, spent.Seconds())
	}
	fmt.Printf("total\t\t%.6f\n", total.Seconds())
}
