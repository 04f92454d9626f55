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
        ("", vec!["network.topology=torus:3x3"], "traffic.destinations", "12"),
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
    let e = sc.validate().unwrap_err();
    assert_eq!(e.field, "traffic.destinations");
}
