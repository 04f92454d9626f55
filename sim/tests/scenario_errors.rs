//! Bad user input in scenarios and `--set` overrides: every error names the
//! field (and the value), and nothing panics.

use wormcast_sim::network::Network;
use wormcast_sim::scenario::{DestCount, Scenario};
use wormcast_sim::InputError;

fn parse(text: &str, sets: &[&str]) -> Result<Scenario, InputError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml(text, &sets, "test.toml")
}

/// Parses then validates.
fn load(text: &str, sets: &[&str]) -> Result<(), InputError> {
    parse(text, sets)?.validate().map(|_| ())
}

#[test]
fn unknown_keys_are_named() {
    for (text, key) in [
        ("[network]\nbuffer_dept = 2\n", "buffer_dept"),
        ("[traffic]\nratee = 0.1\n", "ratee"),
        ("[runn]\ncycles = 5\n", "runn"),
        (
            "[traffic]\npattern = \"scripted\"\n[[traffic.messages]]\ncycle = 0\nsource = \"0,0\"\ndestinations = [\"1,1\"]\nlength = 4\ncolour = 3\n",
            "colour",
        ),
    ] {
        let e = load(text, &[]).unwrap_err();
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
    let e = load("", &["network.bufer_depth=3"]).unwrap_err();
    assert!(e.to_string().contains("bufer_depth"), "{e}");
}

#[test]
fn bad_values_name_the_field() {
    for (text, sets, field, value) in [
        ("[traffic]\nrate = -1.0\n", vec![], "traffic.rate", "-1"),
        ("", vec!["traffic.rate=-1"], "traffic.rate", "-1"),
        ("[network]\ntopology = \"mesh:8x8\"\n", vec![], "network.topology", "mesh:8x8"),
        ("", vec!["network.topology=mesh:4x4"], "network.topology", "mesh:4x4"),
        ("[network]\nbuffer_depth = 0\n", vec![], "network.buffer_depth", "0"),
        ("", vec!["network.buffer_depth=0"], "network.buffer_depth", "0"),
        ("[traffic]\ndestinations = 64\n", vec![], "traffic.destinations", "64"),
        ("[traffic]\ndestinations = [2, 70]\n", vec![], "traffic.destinations", "70"),
        // The default [4, 12] is clamped on small networks, an explicit
        // range is not.
        ("", vec!["network.topology=torus:3x3", "traffic.destinations=[4, 11]"], "traffic.destinations", "11"),
        (
            "[traffic]\npattern = \"scripted\"\n[[traffic.messages]]\ncycle = 0\nsource = \"0,0\"\ndestinations = [\"9,1\"]\nlength = 4\n",
            vec![],
            "traffic.messages[0].destinations",
            "9,1",
        ),
        ("", vec!["traffic.pattern=bursty"], "traffic.pattern", "bursty"),
        ("", vec!["traffic.length=1"], "traffic.length", "1"),
    ] {
        let sets: Vec<&str> = sets;
        let e = load(text, &sets).unwrap_err();
        assert_eq!(e.field, field, "{text} {sets:?}: {e}");
        assert!(e.to_string().contains(field), "{e}");
        assert!(e.to_string().contains(value), "{field}: {e}");
        assert!(!e.allowed.is_empty(), "{e}");
    }
}

#[test]
fn bad_set_syntax_is_named() {
    for s in [
        "traffic.rate",
        "rate=0.1",
        "traffic..rate=1",
        "=3",
        "a.b.c=1",
    ] {
        let e = parse("", &[s]).unwrap_err();
        assert_eq!(e.field, "--set", "{s}: {e}");
        assert!(e.to_string().contains(s), "{s}: {e}");
    }
    // A value of the wrong type for the key names the key.
    let e = parse("", &["network.buffer_depth=deep"]).unwrap_err();
    assert!(
        e.to_string().contains("deep") || e.to_string().contains("buffer_depth"),
        "{e}"
    );
}

/// Network::new validates too: an invalid scenario is an error, not a panic.
#[test]
fn network_rejects_invalid_scenario() {
    let mut s = Scenario::default();
    s.traffic.destinations = DestCount::Fixed(0);
    let e = Network::new(&s).err().expect("rejected");
    assert_eq!(e.field, "traffic.destinations");
    let mut s = Scenario::default();
    s.network.buffer_depth = 0;
    assert_eq!(
        Network::new(&s).err().unwrap().field,
        "network.buffer_depth"
    );
}

/// `traffic.destinations` is only bounded by the network size where random
/// traffic uses it: a scripted scenario on a 3×3 torus keeps the default.
#[test]
fn scripted_scenario_on_small_torus_keeps_default_destinations() {
    let text = r#"
[network]
topology = "torus:3x3"
[traffic]
pattern = "scripted"
[[traffic.messages]]
cycle = 0
source = "0,0"
destinations = ["1,1", "2,2"]
length = 4
"#;
    let sc = wormcast_sim::scenario::Scenario::from_toml(text, &[], "t").unwrap();
    assert!(sc.validate().is_ok());
    let sc = wormcast_sim::scenario::Scenario::from_toml(
        text,
        &[
            "traffic.pattern=\"poisson\"".into(),
            "traffic.messages=[]".into(),
        ],
        "t",
    )
    .unwrap();
    // Random traffic clamps the default to the 8 other nodes.
    assert_eq!(sc.validate().unwrap().dest_range, (4, 8));
    let mut sc = sc;
    sc.traffic.destinations = DestCount::Fixed(9);
    let e = sc.validate().unwrap_err();
    assert_eq!(e.field, "traffic.destinations");
}

/// A value of the wrong type names `section.key`, the
/// value and what is allowed; in a file with its line and column, from
/// `--set` with the override that caused it.
#[test]
fn type_errors_name_the_key_value_and_place() {
    for (text, sets, field, value, allowed, place) in [
        (
            "[traffic]\nrate = \"x\"\n",
            vec![],
            "traffic.rate",
            "\"x\"",
            "a number",
            "t.toml, line 2, column 8",
        ),
        (
            "",
            vec!["traffic.rate=abc"],
            "traffic.rate",
            "abc",
            "a number",
            "--set traffic.rate=abc",
        ),
        (
            "",
            vec!["traffic.seed=-1"],
            "traffic.seed",
            "-1",
            "a whole number",
            "--set traffic.seed=-1",
        ),
        (
            "",
            vec!["network.nonsense=1"],
            "network.nonsense",
            "1",
            "buffer_depth",
            "--set network.nonsense=1",
        ),
        (
            "[run]\nwarmup = true\n",
            vec![],
            "run.warmup",
            "true",
            "a whole number",
            "line 2, column 10",
        ),
        (
            "[network]\nfaulty_links = \"0,0,+x\"\n",
            vec![],
            "network.faulty_links",
            "0,0,+x",
            "a list",
            "line 2",
        ),
        (
            "[traffic]\ndestinations = [1, \"a\"]\n",
            vec![],
            "traffic.destinations",
            "[1, \"a\"]",
            "[min, max]",
            "line 2",
        ),
        (
            "[traffic]\npattern = \"scripted\"\n[[traffic.messages]]\ncycle = \"x\"\n",
            vec![],
            "traffic.messages[0].cycle",
            "\"x\"",
            "a whole number",
            "line 4, column 9",
        ),
        (
            "[traffic]\npattern = \"scripted\"\n[[traffic.messages]]\ncycle = 0\nsource = \"0,0\"\ndestinations = [\"1,1\"]\n",
            vec![],
            "traffic.messages[0].length",
            "(missing)",
            "required",
            "line 3",
        ),
        ("traffic = 3\n", vec![], "traffic", "3", "a section", "line 1"),
        (
            "",
            vec!["timing.startup_serial=maybe"],
            "timing.startup_serial",
            "maybe",
            "true or false",
            "--set timing.startup_serial=maybe",
        ),
    ] {
        let e = Scenario::from_toml(
            text,
            &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            "t.toml",
        )
        .unwrap_err();
        let msg = e.to_string();
        assert_eq!(e.field, field, "{msg}");
        assert!(
            msg.contains(value) && msg.contains(allowed) && msg.contains(place),
            "{msg}"
        );
        assert!(!msg.contains("built-in default"), "{msg}");
    }
    // A TOML syntax error: line, column and the line itself.
    let e = Scenario::from_toml("[traffic]\nrate = = 3\n", &[], "t.toml").unwrap_err();
    assert!(e.field.contains("t.toml line 2, column 8"), "{e}");
    assert_eq!(e.value, "rate = = 3");
}

/// Warm-up and drain are bounded like the window, so no
/// sum can wrap around.
#[test]
fn run_lengths_are_bounded() {
    for (set, field) in [
        ("run.warmup=9223372036854775807", "run.warmup"),
        ("run.drain_cycles=9223372036854775807", "run.drain_cycles"),
        ("run.warmup=1000000001", "run.warmup"),
        (
            "run.deadlock_threshold=18446744073709551615",
            "run.deadlock_threshold",
        ),
    ] {
        let e = load("", &[set]).unwrap_err();
        assert_eq!(e.field, field, "{e}");
    }
    assert!(load(
        "",
        &[
            "run.warmup=1000000000",
            "run.drain_cycles=1000000000",
            "run.cycles=1000000000"
        ]
    )
    .is_ok());
    let e = load(
        "",
        &[
            "run.warmup=9223372036854775807",
            "run.drain_cycles=9223372036854775807",
        ],
    )
    .unwrap_err();
    assert_eq!(e.field, "run.warmup", "{e}");
}

/// The default destination count fits small tori, and
/// changes nothing where it already fitted; errors quote the value as
/// written, not Rust debug text.
#[test]
fn default_destinations_clamp_to_small_networks() {
    for (topo, want) in [
        ("torus:2x2", (3, 3)),
        ("torus:3x3", (4, 8)),
        ("torus:4x4", (4, 12)),
        ("torus:8x8", (4, 12)),
    ] {
        let v = parse("", &[&format!("network.topology={topo}")])
            .unwrap()
            .validate()
            .unwrap();
        assert_eq!(v.dest_range, want, "{topo}");
    }
    let e = load(
        "",
        &["network.topology=torus:2x2", "traffic.destinations=[0, 3]"],
    )
    .unwrap_err();
    assert_eq!(e.value, "[0, 3]", "{e}");
    let e = load("", &["traffic.destinations=100"]).unwrap_err();
    assert_eq!(e.value, "100", "{e}");
}

/// Validation errors can point into the file too.
#[test]
fn locate_finds_the_line_of_a_field() {
    use wormcast_sim::scenario::locate;
    let text = "[network]\ntopology = \"torus:8x8\"\n\n[traffic]\n  rate = -1.0\n[[traffic.messages]]\ncycle = 0\n[[traffic.messages]]\nsource = \"9,1\"\n";
    assert_eq!(
        locate(text, "traffic.rate").as_deref(),
        Some("line 5, column 3")
    );
    assert_eq!(
        locate(text, "network.topology").as_deref(),
        Some("line 2, column 1")
    );
    assert_eq!(
        locate(text, "traffic.messages[1].source").as_deref(),
        Some("line 9, column 1")
    );
    assert_eq!(locate(text, "traffic.seed"), None);
    assert_eq!(locate(text, "run.cycles"), None);
}
