//! The measure's own test: every capture the fidelity run compares is mutated the way a
//! real agy release could change it (a key renamed, dropped, moved or added in any
//! object, a status, a state, an exit code, an error text, a value's type, a list's
//! contents, an event dropped, added or moved, a stderr or log line), and the mutant,
//! taken as fake-agy's output, must be told apart from the capture. A kind of change
//! counts as noticed when at least [`KIND_NOTICED`] of its mutants are; at least
//! [`KINDS_NOTICED`] of the kinds must be (docs/fidelity.md, "The measure's mutation
//! test").

use super::capture_shape::{recorded_shape, text_lines};
use super::compare::compare_shapes;
use super::shape::{stderr_patterns, stdout_shape, Shape, TextLines};
use agy_protocol::capture::{load_corpus, read_transformed, Capture, CaptureKind};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The share of a kind's mutants that must be noticed for the kind to count.
pub(crate) const KIND_NOTICED: f64 = 0.9;
/// The share of kinds that must be noticed.
pub(crate) const KINDS_NOTICED: f64 = 0.9;
/// At most this many mutants of one kind per capture, spread over its positions.
const PER_CAPTURE: usize = 6;

/// What a capture recorded, as bytes (the mutants' material).
#[derive(Clone)]
struct Recorded {
    stdout: Option<Vec<u8>>,
    stderr: Option<Vec<u8>>,
    log: Option<Vec<u8>>,
    exit: Option<i32>,
}

/// A kind of change and how it is made: every mutant of a capture it has.
struct Kind {
    name: &'static str,
    mutate: fn(&Recorded, TextLines) -> Vec<Recorded>,
}

const KINDS: &[Kind] = &[
    Kind {
        name: "rename a key (any object)",
        mutate: |r, _| objects(r, rename),
    },
    Kind {
        name: "drop a key (any object)",
        mutate: |r, _| objects(r, drop_key),
    },
    Kind {
        name: "reorder two keys (any object)",
        mutate: |r, _| objects(r, swap_keys),
    },
    Kind {
        name: "add a key (any object)",
        mutate: |r, _| objects(r, |o, _| add_key(o)),
    },
    Kind {
        name: "change a status",
        mutate: |r, _| {
            objects(r, |o, _| {
                other(o, "status", &["SUCCESS", "ERROR", "CANCELED"])
            })
        },
    },
    Kind {
        name: "change a step state",
        mutate: |r, _| objects(r, |o, _| other(o, "state", &["ACTIVE", "DONE", "ERROR"])),
    },
    Kind {
        name: "change a step type",
        mutate: |r, _| objects(r, |o, _| other(o, "step_type", &["tool", "agent_response"])),
    },
    Kind {
        name: "change an event name",
        mutate: |r, _| objects(r, |o, _| other(o, "event", &["result", "init"])),
    },
    Kind {
        name: "change the permission mode",
        mutate: |r, _| {
            objects(r, |o, _| {
                other(o, "permission_mode", &["request-review", "strict"])
            })
        },
    },
    Kind {
        name: "change an error type",
        mutate: |r, _| {
            objects(r, |o, _| {
                if o.contains_key("message") {
                    other(o, "type", &["TOOL_ERROR", "INTERNAL"])
                } else {
                    false
                }
            })
        },
    },
    Kind {
        name: "change an error text",
        mutate: |r, _| objects(r, |o, _| reword(o, &["error", "message"])),
    },
    Kind {
        name: "change num_turns",
        mutate: |r, _| objects(r, |o, _| bump(o, "num_turns")),
    },
    Kind {
        name: "a number becomes a string",
        mutate: |r, _| {
            objects(r, |o, i| {
                retype(o, i, |v| {
                    v.as_number().map(|n| Value::String(n.to_string()))
                })
            })
        },
    },
    Kind {
        name: "a string becomes a number",
        mutate: |r, _| {
            objects(r, |o, i| {
                retype(o, i, |v| v.as_str().map(|_| Value::from(7)))
            })
        },
    },
    Kind {
        name: "\"\" becomes null",
        mutate: |r, _| {
            objects(r, |o, i| {
                retype(o, i, |v| (v.as_str() == Some("")).then_some(Value::Null))
            })
        },
    },
    Kind {
        name: "null becomes \"\"",
        mutate: |r, _| {
            objects(r, |o, i| {
                retype(o, i, |v| v.is_null().then(|| Value::String(String::new())))
            })
        },
    },
    Kind {
        name: "flip a boolean",
        mutate: |r, _| {
            objects(r, |o, i| {
                retype(o, i, |v| v.as_bool().map(|b| Value::Bool(!b)))
            })
        },
    },
    Kind {
        name: "drop a tool from a tool list",
        mutate: |r, _| {
            objects(r, |o, _| {
                list(o, "tools", |l| {
                    l.remove(0);
                })
            })
        },
    },
    Kind {
        name: "add a tool to a tool list",
        mutate: |r, _| {
            objects(r, |o, _| {
                list(o, "tools", |l| l.push(Value::from("added_tool")))
            })
        },
    },
    Kind {
        name: "rename a tool in a tool list",
        mutate: |r, _| {
            objects(r, |o, _| {
                list(o, "tools", |l| l[0] = Value::from("renamed_tool"))
            })
        },
    },
    Kind {
        name: "drop a denied action",
        mutate: |r, _| {
            objects(r, |o, _| {
                list(o, "denied_actions", |l| {
                    l.remove(0);
                })
            })
        },
    },
    Kind {
        name: "add a denied action",
        mutate: |r, _| {
            objects(r, |o, _| {
                list(o, "denied_actions", |l| l.push(l[0].clone()))
            })
        },
    },
    Kind {
        name: "drop an event",
        mutate: |r, _| {
            lines(r, |l, i| {
                l.remove(i);
                true
            })
        },
    },
    Kind {
        name: "add an event",
        mutate: |r, _| {
            lines(r, |l, i| {
                let e = added_event(&l[i]);
                l.insert(i + 1, e);
                true
            })
        },
    },
    Kind {
        name: "swap two events",
        mutate: |r, _| {
            lines(r, |l, i| {
                let ok = i + 1 < l.len() && l[i] != l[i + 1];
                if ok {
                    l.swap(i, i + 1);
                }
                ok
            })
        },
    },
    Kind {
        name: "change an exit code",
        mutate: |r, _| {
            r.exit
                .map(|c| Recorded {
                    exit: Some(c + 1),
                    ..r.clone()
                })
                .into_iter()
                .collect()
        },
    },
    Kind {
        name: "change a stderr line",
        mutate: |r, _| {
            text(
                r,
                |t| &mut t.stderr,
                |l, i| {
                    l[i] = format!("agy: something else {}", l[i]);
                    true
                },
            )
        },
    },
    Kind {
        name: "drop a stderr line",
        mutate: |r, _| {
            text(
                r,
                |t| &mut t.stderr,
                |l, i| {
                    l.remove(i);
                    true
                },
            )
        },
    },
    Kind {
        name: "add a stderr line",
        mutate: |r, _| {
            text(
                r,
                |t| &mut t.stderr,
                |l, i| {
                    l.insert(i, "agy: a new warning".into());
                    true
                },
            )
        },
    },
    Kind {
        name: "change a log line",
        mutate: |r, _| {
            text(
                r,
                |t| &mut t.log,
                |l, i| {
                    l[i] = format!("W changed {}", l[i]);
                    true
                },
            )
        },
    },
    Kind {
        name: "change a line of agy's own text",
        mutate: |r, t| {
            if t == TextLines::Patterns {
                text(
                    r,
                    |t| &mut t.stdout,
                    |l, i| {
                        let ok = !l[i].trim_start().starts_with('{') && !l[i].trim().is_empty();
                        if ok {
                            l[i] = format!("{} (changed)", l[i]);
                        }
                        ok
                    },
                )
            } else {
                Vec::new()
            }
        },
    },
];

/// The mutants made by changing each JSON object of stdout (not tool arguments, which
/// are the model's) with `change` (given a position to pick a key by); `false` when
/// the object has nothing to change.
fn objects(r: &Recorded, change: fn(&mut Map<String, Value>, usize) -> bool) -> Vec<Recorded> {
    let Some(stdout) = &r.stdout else {
        return Vec::new();
    };
    let lines = split_lines(stdout);
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let mut paths = Vec::new();
        object_paths(&Value::Object(obj.clone()), String::new(), &mut paths);
        for (k, path) in paths.iter().enumerate() {
            let mut v = Value::Object(obj.clone());
            let Some(Value::Object(target)) = v.pointer_mut(path) else {
                continue;
            };
            if change(target, n + k) {
                let mut mutant = lines.clone();
                mutant[n] = v.to_string();
                out.push(Recorded {
                    stdout: Some(join(&mutant)),
                    ..r.clone()
                });
            }
        }
    }
    spread(out)
}

/// JSON pointers of every object inside `v`, `v` included, tool arguments left out.
fn object_paths(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            out.push(at.clone());
            for (k, child) in o {
                if k != "parameters" {
                    object_paths(
                        child,
                        format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                object_paths(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The mutants made by changing stdout's list of lines at each position.
fn lines(r: &Recorded, change: fn(&mut Vec<String>, usize) -> bool) -> Vec<Recorded> {
    text(r, |t| &mut t.stdout, change)
}

/// The mutants made by changing the lines of one file at each position.
fn text(
    r: &Recorded,
    file: fn(&mut Recorded) -> &mut Option<Vec<u8>>,
    change: fn(&mut Vec<String>, usize) -> bool,
) -> Vec<Recorded> {
    let mut probe = r.clone();
    let Some(bytes) = file(&mut probe).clone() else {
        return Vec::new();
    };
    let lines: Vec<String> = split_lines(&bytes)
        .into_iter()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut out = Vec::new();
    for i in 0..lines.len() {
        let mut mutant = lines.clone();
        if change(&mut mutant, i) {
            let mut m = r.clone();
            *file(&mut m) = Some(join(&mutant));
            out.push(m);
        }
    }
    spread(out)
}

/// At most [`PER_CAPTURE`] of `all`, evenly spread.
fn spread(all: Vec<Recorded>) -> Vec<Recorded> {
    if all.len() <= PER_CAPTURE {
        return all;
    }
    let step = all.len() as f64 / PER_CAPTURE as f64;
    (0..PER_CAPTURE)
        .filter_map(|i| all.get((i as f64 * step) as usize).cloned())
        .collect()
}

fn split_lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(String::from)
        .collect()
}

fn join(lines: &[String]) -> Vec<u8> {
    let mut s = lines.join("\n");
    s.push('\n');
    s.into_bytes()
}

fn key_at(o: &Map<String, Value>, i: usize) -> Option<String> {
    (!o.is_empty())
        .then(|| o.keys().nth(i % o.len()).cloned())
        .flatten()
}

fn rename(o: &mut Map<String, Value>, i: usize) -> bool {
    let Some(k) = key_at(o, i) else { return false };
    let entries: Vec<(String, Value)> = std::mem::take(o).into_iter().collect();
    for (key, v) in entries {
        let key = if key == k {
            format!("{key}_renamed")
        } else {
            key
        };
        o.insert(key, v);
    }
    true
}

fn drop_key(o: &mut Map<String, Value>, i: usize) -> bool {
    key_at(o, i).is_some_and(|k| o.shift_remove(&k).is_some())
}

fn swap_keys(o: &mut Map<String, Value>, i: usize) -> bool {
    if o.len() < 2 {
        return false;
    }
    let a = i % (o.len() - 1);
    let mut entries: Vec<(String, Value)> = std::mem::take(o).into_iter().collect();
    entries.swap(a, a + 1);
    o.extend(entries);
    true
}

fn add_key(o: &mut Map<String, Value>) -> bool {
    o.insert("added_key".into(), Value::from(1));
    true
}

/// Replaces the string at `key` with the first of `choices` it is not.
fn other(o: &mut Map<String, Value>, key: &str, choices: &[&str]) -> bool {
    let Some(Value::String(s)) = o.get(key) else {
        return false;
    };
    let Some(new) = choices.iter().find(|c| **c != s.as_str()) else {
        return false;
    };
    o.insert(key.into(), Value::from(*new));
    true
}

fn reword(o: &mut Map<String, Value>, keys: &[&str]) -> bool {
    for key in keys {
        if let Some(Value::String(s)) = o.get(*key) {
            let new = format!(
                "unexpected failure in {}",
                s.chars().rev().collect::<String>()
            );
            o.insert((*key).into(), Value::from(new));
            return true;
        }
    }
    false
}

fn bump(o: &mut Map<String, Value>, key: &str) -> bool {
    let Some(n) = o.get(key).and_then(Value::as_i64) else {
        return false;
    };
    o.insert(key.into(), Value::from(n + 1));
    true
}

/// Changes the first value (from position `i` on) that `to` turns into another type.
fn retype(o: &mut Map<String, Value>, i: usize, to: fn(&Value) -> Option<Value>) -> bool {
    let n = o.len();
    let keys: Vec<String> = o.keys().cloned().collect();
    for j in 0..n {
        let key = &keys[(i + j) % n];
        if let Some(v) = o.get_mut(key) {
            if let Some(new) = to(v) {
                *v = new;
                return true;
            }
        }
    }
    false
}

fn list(o: &mut Map<String, Value>, key: &str, change: fn(&mut Vec<Value>)) -> bool {
    match o.get_mut(key) {
        Some(Value::Array(l)) if !l.is_empty() => {
            change(l);
            true
        }
        _ => false,
    }
}

/// An event agy could newly print after `line`: a `system_message` step for a stream,
/// a second envelope for an envelope, another text line for text.
fn added_event(line: &str) -> String {
    match serde_json::from_str::<Value>(line) {
        Ok(v) if v.get("event").is_some() => {
            r#"{"event":"step_update","step_update":{"step_index":99,"state":"DONE","step_type":"system_message"}}"#.into()
        }
        Ok(_) => r#"{"status":"SUCCESS","response":""}"#.into(),
        Err(_) => "agy: a new line".into(),
    }
}

/// The shape of `r` taken as fake-agy's output.
fn observed(c: &Capture, r: &Recorded) -> Shape {
    let text = text_lines(c);
    Shape {
        exit: r.exit,
        stdout: Some(stdout_shape(r.stdout.as_deref().unwrap_or_default(), text)),
        stderr: Some(stderr_patterns(r.stderr.as_deref().unwrap_or_default())),
        stderr_cut: false,
        log: Some(stderr_patterns(r.log.as_deref().unwrap_or_default())),
    }
}

/// One kind's tally.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tally {
    pub mutants: usize,
    pub noticed: usize,
}

impl Tally {
    pub(crate) fn rate(&self) -> f64 {
        if self.mutants == 0 {
            return 0.0;
        }
        self.noticed as f64 / self.mutants as f64
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("traces")
}

/// Mutates every compared capture of the corpus; per kind, the tally; and the captures
/// whose unmutated record the measure does not find the same as itself.
pub(crate) fn mutate_corpus(dir: &Path) -> (Vec<(&'static str, Tally)>, Vec<String>) {
    let corpus = load_corpus(dir).unwrap_or_else(|d| panic!("the corpus loads: {d}"));
    let mut tallies: BTreeMap<usize, Tally> = BTreeMap::new();
    let mut unstable = Vec::new();
    for c in &corpus.captures {
        if c.kind == CaptureKind::Acp || c.argv().is_none() {
            continue; // not compared by the fidelity run
        }
        let read = |role: &str, f: &Option<String>| {
            f.as_deref()
                .map(|rel| read_transformed(dir, c, role, rel).unwrap_or_default())
        };
        let r = Recorded {
            stdout: read("stdout", &c.files.stdout),
            stderr: read("stderr", &c.files.stderr),
            log: read("log", &c.files.log),
            exit: c.exit.get().copied(),
        };
        let expected = recorded_shape(
            c,
            r.stdout.as_deref(),
            r.stderr.as_deref(),
            r.log.as_deref(),
        );
        if !compare_shapes(&expected, &observed(c, &r)).is_empty() {
            unstable.push(c.id.clone());
            continue;
        }
        for (k, kind) in KINDS.iter().enumerate() {
            for m in (kind.mutate)(&r, text_lines(c)) {
                let t = tallies.entry(k).or_default();
                t.mutants += 1;
                t.noticed += usize::from(!compare_shapes(&expected, &observed(c, &m)).is_empty());
            }
        }
    }
    let table = KINDS
        .iter()
        .enumerate()
        .map(|(k, kind)| (kind.name, tallies.get(&k).copied().unwrap_or_default()))
        .collect();
    (table, unstable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measure_notices_most_kinds_of_change_real_agy_could_make() {
        let (table, unstable) = mutate_corpus(&corpus_dir());
        assert!(
            unstable.is_empty(),
            "captures unlike themselves: {unstable:?}"
        );
        println!(
            "{:<36} {:>8} {:>8} {:>6}",
            "kind of change", "mutants", "noticed", "rate"
        );
        // A kind no capture gives a mutant of counts as not noticed.
        let mut kinds_noticed = 0;
        for (name, t) in &table {
            let ok = t.mutants > 0 && t.rate() >= KIND_NOTICED;
            kinds_noticed += usize::from(ok);
            println!(
                "{name:<36} {:>8} {:>8} {:>5.0}% {}",
                t.mutants,
                t.noticed,
                t.rate() * 100.0,
                if ok { "" } else { "✗" }
            );
        }
        let share = kinds_noticed as f64 / table.len() as f64;
        println!("kinds noticed: {kinds_noticed} of {}", table.len());
        assert!(
            share >= KINDS_NOTICED,
            "{kinds_noticed} of {} kinds noticed (needs {:.0}%)",
            table.len(),
            KINDS_NOTICED * 100.0
        );
    }

    #[test]
    fn a_mutant_is_a_different_record_than_its_capture() {
        let r = Recorded {
            stdout: Some(br#"{"status":"SUCCESS","response":"","num_turns":1}"#.to_vec()),
            stderr: None,
            log: None,
            exit: Some(0),
        };
        for kind in KINDS {
            for m in (kind.mutate)(&r, TextLines::Model) {
                assert!(
                    m.stdout != r.stdout || m.exit != r.exit,
                    "{} made no change",
                    kind.name
                );
            }
        }
    }
}
