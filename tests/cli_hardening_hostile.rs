//! Hostile input from the command line: every refusal names the field or
//! flag, quotes the value and says what is allowed, exits with status 2 and
//! leaves no output behind; a failed run says why even when quiet.

mod common;
use common::{rejects, wormcast};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The topology error quotes the whole value typed, then names the side.
#[test]
fn topology_error_quotes_the_whole_value() {
    let args = ["run", "--set", "network.topology=torus:2x1"];
    rejects(&args, "network.topology", "`torus:2x1`");
    let err = stderr(&wormcast(&args));
    assert!(err.contains("rows (M) is `1`"), "{err}");
    assert!(err.contains("from 2 to 256"), "{err}");
}

/// `-q` silences the summary, not the reason for a non-zero exit.
#[test]
fn quiet_failures_still_say_why() {
    let o = wormcast(&[
        "run",
        "-q",
        "--set",
        "traffic.length=1000000",
        "--set",
        "run.cycles=200",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("still unfinished after"), "{err}");
    assert!(o.stdout.is_empty());

    let deadlock = "examples/deadlock-shared-consumption.toml";
    let o = wormcast(&["run", "-q", "--scenario", deadlock]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("deadlocked"), "{err}");

    let o = wormcast(&[
        "sweep",
        "-q",
        "--scenario",
        deadlock,
        "--loads",
        "0.02",
        "--threads",
        "1",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 of 1 points failed: dstm1 at load 0.02 (deadlock)"),
        "{err}"
    );
}

/// A scenario `[run]` short enough for every command here.
const SHORT: &str = "[run]\nwarmup = 0\ncycles = 300\ndrain_cycles = 2000\n";

/// An output that is the same file as an input is refused before anything
/// runs, and the input is left as it was: same path, `./` spelling, a
/// hard link.
#[test]
fn outputs_never_overwrite_inputs() {
    let dir = tmp("overwrite");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("f.toml");
    std::fs::write(&f, SHORT).unwrap();
    let link = dir.join("link.toml");
    let _ = std::fs::remove_file(&link);
    std::fs::hard_link(&f, &link).unwrap();
    let fs = f.to_str().unwrap().to_string();
    let dotted = format!("{}/./f.toml", dir.display());
    let ls = link.to_str().unwrap().to_string();
    let sw = |flag: &'static str, out: &str| {
        vec![
            "sweep".to_string(),
            "-q".into(),
            "--loads".into(),
            "0.001".into(),
            "--threads".into(),
            "1".into(),
            "--scenario".into(),
            fs.clone(),
            flag.into(),
            out.to_string(),
        ]
    };
    let mut cases: Vec<(Vec<String>, &str, &str)> = vec![
        (
            vec![
                "run".into(),
                "--scenario".into(),
                fs.clone(),
                "--json".into(),
                fs.clone(),
            ],
            "--json",
            &fs,
        ),
        (
            vec![
                "run".into(),
                "--scenario".into(),
                fs.clone(),
                "--messages".into(),
                dotted.clone(),
            ],
            "--messages",
            &dotted,
        ),
        (sw("--json", &fs), "--json", &fs),
        (sw("--plot", &ls), "--plot", &ls),
        (
            vec![
                "verify".into(),
                "--scenario".into(),
                fs.clone(),
                "--emit-scenario".into(),
                fs.clone(),
            ],
            "--emit-scenario",
            &fs,
        ),
    ];
    for (args, flag, value) in cases.drain(..) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        rejects(&a, flag, &format!("`{value}`"));
        let err = stderr(&wormcast(&a));
        assert!(err.contains("same file as the input --scenario"), "{err}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), SHORT, "{args:?}");
    }
    // A relative `f.toml` against `./f.toml`, from the file's directory.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_wormcast"))
        .current_dir(&dir)
        .args(["run", "--scenario", "./f.toml", "--json", "f.toml"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid --json = `f.toml`"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), SHORT);

    // sweep-merge: an output that is one of the shards.
    let shard = dir.join("s0.json");
    let o = wormcast(&[
        "sweep",
        "-q",
        "--loads",
        "0.001",
        "--threads",
        "1",
        "--scenario",
        &fs,
        "--shard",
        "0/1",
        "--json",
        shard.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = std::fs::read_to_string(&shard).unwrap();
    let s = shard.to_str().unwrap();
    rejects(
        &["sweep-merge", s, "--json", s],
        "--json",
        &format!("`{s}`"),
    );
    assert_eq!(std::fs::read_to_string(&shard).unwrap(), before);
}

/// `verify` and `sweep-merge` that fail on bad input leave no empty
/// `--json`, `--dot`, `--emit-scenario` or `--plot` file behind.
#[test]
fn failures_leave_no_empty_outputs() {
    let dir = tmp("no-empty");
    std::fs::create_dir_all(&dir).unwrap();
    let out = |n: &str| {
        let p = dir.join(n);
        let _ = std::fs::remove_file(&p);
        p.to_str().unwrap().to_string()
    };
    let (json, dot, emit, plot) = (out("v.json"), out("v.dot"), out("e.toml"), out("p.svg"));
    let none_left = |what: &str| {
        for p in [&json, &dot, &emit, &plot] {
            assert!(!std::path::Path::new(p).exists(), "{what} left {p}");
        }
    };
    let o = wormcast(&[
        "verify",
        "--set",
        "network.topology=torus:1x1",
        "--json",
        &json,
        "--dot",
        &dot,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    none_left("verify with a bad --set");
    let o = wormcast(&["verify", "--cycles", "0", "--json", &json, "--dot", &dot]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    none_left("verify --cycles 0");
    // Deadlock-free: there is no witness to emit.
    let o = wormcast(&["verify", "--emit-scenario", &emit]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    none_left("verify --emit-scenario without a witness");

    let bad = dir.join("bad-shard.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let o = wormcast(&[
        "sweep-merge",
        bad.to_str().unwrap(),
        "--json",
        &json,
        "--plot",
        &plot,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    none_left("sweep-merge of a bad shard");
}

/// A shard whose point was edited (load 0.002 to 0.5) is refused by the
/// merge, naming the file, the point and the value the sweep expects; an
/// unsharded sweep's JSON does not gain the grid fields.
#[test]
fn merge_refuses_a_tampered_shard() {
    let dir = tmp("tamper");
    std::fs::create_dir_all(&dir).unwrap();
    let shard = |i: usize| dir.join(format!("s{i}.json"));
    for i in 0..2 {
        let o = wormcast(&[
            "sweep",
            "-q",
            "--loads",
            "0.001..0.003/0.001",
            "--threads",
            "1",
            "--set",
            "run.warmup=0",
            "--set",
            "run.cycles=300",
            "--shard",
            &format!("{i}/2"),
            "--json",
            shard(i).to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let (s0, s1) = (shard(0), shard(1));
    let (s0, s1) = (s0.to_str().unwrap(), s1.to_str().unwrap());
    let o = wormcast(&["sweep-merge", s0, s1]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s1).unwrap()).unwrap();
    assert_eq!(v["shard"]["point_indices"], serde_json::json!([1]));
    assert_eq!(v["points"][0]["load"], serde_json::json!(0.002));
    v["points"][0]["load"] = serde_json::json!(0.5);
    std::fs::write(s1, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    rejects(&["sweep-merge", s0, s1], s1, "load 0.5");
    let err = stderr(&wormcast(&["sweep-merge", s0, s1]));
    assert!(err.contains("point 1"), "{err}");
    assert!(err.contains("(scheme `dstm1`, load 0.002) there"), "{err}");

    // The scheme is checked too.
    v["points"][0]["load"] = serde_json::json!(0.002);
    v["points"][0]["scheme"] = serde_json::json!("dstm2");
    std::fs::write(s1, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    rejects(&["sweep-merge", s0, s1], s1, "scheme `dstm2`");

    let full = dir.join("full.json");
    let o = wormcast(&[
        "sweep",
        "-q",
        "--loads",
        "0.001",
        "--threads",
        "1",
        "--set",
        "run.warmup=0",
        "--set",
        "run.cycles=300",
        "--json",
        full.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&full).unwrap();
    // An unsharded sweep has no shard information (its provenance lists
    // the loads, outside any `shard`).
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        !text.contains("\"shard\"") && v.get("shard").is_none(),
        "{text}"
    );
    assert!(v["provenance"]["loads"].is_array(), "{text}");
}

/// A scripted message the run would never create, or with a destination
/// named twice, is refused with its field, its value and what is allowed.
#[test]
fn scripted_messages_are_checked() {
    let scenario = |cycle: u64, dests: &str| {
        let p = tmp(&format!("scripted-{cycle}-{}.toml", dests.len()));
        std::fs::write(
            &p,
            format!(
                "[traffic]\npattern = \"scripted\"\n\n[[traffic.messages]]\ncycle = {cycle}\nsource = \"0,0\"\ndestinations = {dests}\nlength = 4\n\n[run]\nwarmup = 500\ncycles = 1000\n"
            ),
        )
        .unwrap();
        p.to_str().unwrap().to_string()
    };
    let ok = scenario(1499, r#"["1,1", "2,2"]"#);
    let o = wormcast(&["run", "-q", "--scenario", &ok]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let late = scenario(1500, r#"["1,1"]"#);
    rejects(
        &["run", "--scenario", &late],
        "traffic.messages[0].cycle",
        "`1500`",
    );
    let err = stderr(&wormcast(&["run", "--scenario", &late]));
    assert!(err.contains("0 to 1499"), "{err}");
    let twice = scenario(10, r#"["1,1", "1,1"]"#);
    rejects(
        &["run", "--scenario", &twice],
        "traffic.messages[0].destinations",
        r#"`["1,1", "1,1"]`"#,
    );
    let err = stderr(&wormcast(&["run", "--scenario", &twice]));
    assert!(err.contains("distinct nodes"), "{err}");
}

/// Unclear errors made clear: seeds above the largest TOML integer, a value
/// of the wrong type, a huge value, `--gen-rate` as a fraction, a mesh
/// scheme on a torus; and the documented side limit.
#[test]
fn errors_say_what_is_allowed() {
    // Any u64 seed: as an integer up to i64::MAX, above it as a string.
    let o = wormcast(&[
        "run",
        "--set",
        "traffic.seed=18446744073709551615",
        "--dump-scenario",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.contains("seed = \"18446744073709551615\""), "{out}");
    let o = wormcast(&["run", "--set", "traffic.seed=7", "--dump-scenario"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("seed = 7\n"));
    rejects(
        &["run", "--set", "traffic.seed=18446744073709551616"],
        "traffic.seed",
        "18446744073709551616",
    );
    let err = stderr(&wormcast(&["run", "--set", "traffic.seed=-1"]));
    assert!(err.contains("write it as a string"), "{err}");

    // The key's limits, not the Rust type's.
    let args = ["run", "--set", "network.buffer_depth={a=1}"];
    rejects(&args, "network.buffer_depth", "{ a = 1 }");
    let err = stderr(&wormcast(&args));
    assert!(err.contains("a whole number, 1..8"), "{err}");
    assert!(!err.contains("18446744073709551615"), "{err}");

    // A huge value is quoted by its head only.
    let big = tmp("big.toml");
    std::fs::write(
        &big,
        format!("[network]\nbuffer_depth = \"{}\"\n", "x".repeat(10_000_000)),
    )
    .unwrap();
    let o = wormcast(&["run", "--scenario", big.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.len() < 2000, "{} bytes", err.len());
    assert!(err.contains("more bytes cut"), "{err}");
    for long in [
        format!("network.topology={}", "y".repeat(100_000)),
        format!("network.buffer_depth=[{}]", "1,".repeat(30_000)),
    ] {
        let o = wormcast(&["run", "--set", &long]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2));
        assert!(err.len() < 2000, "{} bytes", err.len());
    }

    // --gen-rate says what it takes.
    let out = tmp("gen-rate");
    let args = [
        "verilog",
        "--fpga-top",
        "--gen-rate",
        "0.1",
        "--out",
        out.to_str().unwrap(),
    ];
    rejects(&args, "--gen-rate", "0.1");
    let err = stderr(&wormcast(&args));
    assert!(err.contains("a whole number from 0 to 256"), "{err}");
    assert!(!err.contains("invalid digit"), "{err}");

    // A mesh scheme on a torus names the scheme, not a routing never set.
    let args = ["sweep", "--schemes", "dual-path", "--loads", "0.001"];
    rejects(&args, "--schemes", "dual-path");
    let err = stderr(&wormcast(&args));
    assert!(err.contains("needs a mesh scenario"), "{err}");
    assert!(!err.contains("network.routing"), "{err}");

    // The documented side limit is the real one.
    let docs = std::fs::read_to_string("docs/scenario.md").unwrap();
    assert!(docs.contains(&format!("2 ≤ K, M ≤ {}", wormcast_sim::topology::MAX_SIDE)));
}
