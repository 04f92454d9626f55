//! The HTML replay (`run --replay`) in a real headless
//! Chromium: what the page draws at every cycle of the window is exactly
//! the kernel's registers, read here independently by running the same
//! scenario through `wormcast_sim`; splits, blocked heads, stepping, the
//! slider and clicking a worm behave. Also takes the screenshot for docs/
//! (`WORMCAST_SHOT_DIR=docs/img`).
//!
//! Chromium is the Debian package `chromium` (scripts/test.sh installs it);
//! a missing browser fails this test rather than skipping it, so CI cannot
//! pass without having looked. `CHROME=/path` picks another binary.
//!
//! Driver: `headless_chrome` (DevTools protocol over a websocket,
//! synchronous, launches the browser itself): no async runtime and no
//! separate chromedriver process, unlike the WebDriver crates.

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use wormcast_sim::network::Network;
use wormcast_sim::scenario::Scenario;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// Headless Chromium with a window of `size` pixels.
fn launch(size: (u32, u32)) -> Browser {
    Browser::new(
        LaunchOptions::default_builder()
            .path(Some(chromium()))
            // CI runs as root in a container: no sandbox, and a small
            // /dev/shm must not crash the renderer.
            .sandbox(false)
            .args(vec![std::ffi::OsStr::new("--disable-dev-shm-usage")])
            // headless_chrome drops the connection this long after launch
            // even while the page is busy; on a loaded machine its default
            // of 30 s is shorter than the test.
            .idle_browser_timeout(std::time::Duration::from_secs(600))
            .window_size(Some(size))
            .build()
            .unwrap(),
    )
    .expect("launch headless Chromium")
}

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("CHROME") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "no Chromium found (tried chromium, chromium-browser, google-chrome on PATH, and $CHROME): \
         install the Debian package `chromium` (scripts/test.sh does)"
    );
}

/// One drawn (or expected) flit: kind, router, port, FIFO slot, message,
/// blocked-for (0 = not marked).
type Item = (String, u32, u8, u32, i64, u64);
/// A split point: router, input, message at its front.
type Split = (u32, u8, i64);

/// What the page must draw at one cycle.
struct Expect {
    c: u64,
    items: BTreeSet<Item>,
    splits: Vec<Split>,
}

/// The kernel's registers at every cycle of `window`, read directly from
/// `wormcast_sim` (not through the replay code).
fn expected(scenario: Option<&str>, sets: &[&str], window: (u64, u64)) -> (Vec<Expect>, Network) {
    let text = scenario.map_or(String::new(), |s| {
        std::fs::read_to_string(example(s)).unwrap()
    });
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = Scenario::from_toml(&text, &sets, "test").unwrap();
    let mut net = Network::new(&sc).unwrap();
    let mut out = Vec::new();
    let mut take = |n: &Network| {
        let c = n.cycle();
        if c < window.0 || c >= window.1 {
            return;
        }
        let f = &n.fabric;
        let no = |m: u32| if m == u32::MAX { -1 } else { m as i64 };
        let mut items = BTreeSet::new();
        let mut splits = Vec::new();
        for (r, st) in f.state.iter().enumerate() {
            for (o, q) in st.out.iter().enumerate() {
                if q.valid {
                    let kind = if o < 4 { "link" } else { "eject" };
                    items.insert((kind.into(), r as u32, o as u8, 0, no(f.shadow[r].out[o]), 0));
                }
            }
            for (k, i) in st.inp.iter().enumerate() {
                let q = &i.fifo;
                for j in 0..q.count as usize {
                    let m = no(f.shadow[r].fifo[k][(q.rd as usize + j) % q.slot.len()]);
                    let head = wormcast_sim::flit::kind(q.slot[q.rd as usize])
                        == wormcast_sim::flit::Kind::Head;
                    let wait = c.saturating_sub(1).saturating_sub(f.last_move[r][k]);
                    let blocked = if j == 0 && k < 4 && head { wait } else { 0 };
                    items.insert(("fifo".into(), r as u32, k as u8, j as u32, m, blocked));
                }
                if q.count > 0 && i.reserved.count_ones() >= 2 {
                    let m = no(f.shadow[r].fifo[k][q.rd as usize]);
                    splits.push((r as u32, k as u8, m));
                }
            }
        }
        out.push(Expect { c, items, splits });
    };
    take(&net);
    net.run(&mut |n| {
        take(n);
        true
    });
    (out, net)
}

/// Writes the page with the command line, into `dir`.
fn write_page(
    dir: &Path,
    name: &str,
    scenario: Option<&str>,
    sets: &[&str],
    window: (u64, u64),
) -> PathBuf {
    let page = dir.join(name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wormcast"));
    cmd.args(["run", "-q", "--replay"]).arg(&page);
    cmd.args(["--replay-window", &format!("{}..{}", window.0, window.1)]);
    if let Some(s) = scenario {
        cmd.arg("--scenario").arg(example(s));
    }
    for s in sets {
        cmd.args(["--set", s]);
    }
    let o = cmd.output().unwrap();
    // A saturated run may end with messages unfinished (exit 1); the page
    // is written either way.
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    for external in ["src=\"http", "href=\"http", "<link ", "import ", "fetch("] {
        assert!(!html.contains(external), "page loads something: {external}");
    }
    page
}

/// Steps the page through every expected cycle and compares what it draws.
/// Returns (flits, blocked heads, first cycle with a split).
fn check_every_cycle(tab: &Arc<Tab>, want: &[Expect]) -> (usize, usize, Option<u64>) {
    assert_eq!(eval(tab, "replay.trace.frames.length"), want.len());
    let mut flits = 0;
    let mut blocked = 0;
    let mut split_cycle = None;
    for e in want {
        eval(tab, &format!("replay.goto({})", e.c));
        let (got, got_splits) = drawn(tab);
        assert_eq!(got, e.items, "cycle {}: drawn vs kernel", e.c);
        assert_eq!(got_splits, e.splits, "cycle {}: split points", e.c);
        flits += e.items.len();
        blocked += e.items.iter().filter(|i| i.5 > 0).count();
        if split_cycle.is_none() && !e.splits.is_empty() {
            split_cycle = Some(e.c);
        }
    }
    (flits, blocked, split_cycle)
}

fn eval(tab: &Arc<Tab>, js: &str) -> serde_json::Value {
    tab.evaluate(js, false)
        .unwrap_or_else(|e| panic!("{js}: {e}"))
        .value
        .unwrap_or(serde_json::Value::Null)
}

/// What the page draws now, read back from its SVG.
fn drawn(tab: &Arc<Tab>) -> (BTreeSet<Item>, Vec<Split>) {
    let v = eval(
        tab,
        r#"JSON.stringify([...document.querySelectorAll('#live [data-kind]')].map(e => [
            e.dataset.kind, +e.dataset.router, +e.dataset.port, +(e.dataset.slot || 0),
            +e.dataset.msg, +(e.dataset.blocked || 0)]))"#,
    );
    let rows: Vec<(String, u32, u8, u32, i64, u64)> =
        serde_json::from_str(v.as_str().unwrap()).unwrap();
    let mut items = BTreeSet::new();
    let mut splits = Vec::new();
    for r in rows {
        if r.0 == "split" {
            splits.push((r.1, r.2, r.4));
        } else {
            assert!(items.insert(r.clone()), "drawn twice: {r:?}");
        }
    }
    (items, splits)
}

#[test]
fn replay_page_draws_the_kernel_trace_in_chromium() {
    let dir = std::env::temp_dir().join(format!("wormcast-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    const WINDOW: (u64, u64) = (0, 60);
    let page = write_page(
        &dir,
        "split.html",
        Some("multicast-split.toml"),
        &[],
        WINDOW,
    );
    let (want, net) = expected(Some("multicast-split.toml"), &[], WINDOW);
    assert_eq!(want.len() as u64, WINDOW.1 - WINDOW.0);

    let browser = launch((960, 1100));
    let tab = browser.new_tab().unwrap();
    let url = format!("file://{}", page.display());
    tab.navigate_to(&url)
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    assert_eq!(
        eval(&tab, "replay.trace.frames.length"),
        (WINDOW.1 - WINDOW.0)
    );

    // Every cycle of the window: the page draws the kernel's flits, no more.
    let (flits, blocked, split_cycle) = check_every_cycle(&tab, &want);
    assert!(flits > 100, "the window shows traffic ({flits} flits)");
    assert!(blocked > 0, "the window has a blocked head");
    let split = split_cycle.expect("the multicast splits inside the window");

    // Step and slider move one cycle / to the slider's cycle.
    eval(&tab, &format!("replay.goto({split})"));
    tab.find_element("#fwd").unwrap().click().unwrap();
    assert_eq!(eval(&tab, "replay.cycle()"), split + 1);
    tab.find_element("#back").unwrap().click().unwrap();
    tab.find_element("#back").unwrap().click().unwrap();
    assert_eq!(eval(&tab, "replay.cycle()"), split - 1);
    eval(
        &tab,
        "const s = document.getElementById('slider'); s.value = 7; s.dispatchEvent(new Event('input'))",
    );
    assert_eq!(eval(&tab, "replay.cycle()"), WINDOW.0 + 7);
    assert_eq!(
        eval(&tab, "document.getElementById('cycle').textContent"),
        (WINDOW.0 + 7).to_string()
    );
    // Play advances by itself; pause stops it.
    tab.find_element("#play").unwrap().click().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    tab.find_element("#play").unwrap().click().unwrap();
    let after = eval(&tab, "replay.cycle()").as_u64().unwrap();
    assert!(after > WINDOW.0 + 7, "play advanced to {after}");
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert_eq!(
        eval(&tab, "replay.cycle()").as_u64().unwrap(),
        after,
        "paused"
    );

    // A real mouse click on a flit on a link names its message.
    eval(&tab, &format!("replay.goto({})", split + 2));
    let el = tab.find_element("#live [data-kind=link]").unwrap();
    let m: usize = el
        .get_attribute_value("data-msg")
        .unwrap()
        .unwrap()
        .parse()
        .unwrap();
    el.click().unwrap();
    let info = eval(&tab, "document.getElementById('info').textContent");
    let info = info.as_str().unwrap();
    let g = &net.msgs[m];
    let (sx, sy) = net.fabric.topo.coord(g.source);
    assert!(
        info.starts_with(&format!(
            "message {m}: source ({sx},{sy}) to {} destination",
            g.dests.len()
        )),
        "{info}"
    );
    for &d in &g.dests {
        let (x, y) = net.fabric.topo.coord(d);
        assert!(info.contains(&format!("({x},{y})")), "{info}");
    }
    // The clicked worm stays bright, every other flit dims, also after a step.
    let bright =
        "[...document.querySelectorAll('#live [data-msg]:not(.dim)')].map(e => +e.dataset.msg)";
    for _ in 0..2 {
        let v = eval(&tab, &format!("JSON.stringify({bright})"));
        let ms: Vec<i64> = serde_json::from_str(v.as_str().unwrap()).unwrap();
        assert!(
            !ms.is_empty() && ms.iter().all(|&x| x == m as i64),
            "{ms:?}"
        );
        tab.find_element("#fwd").unwrap().click().unwrap();
    }
    // A click on the background (no flit) clears the selection.
    eval(
        &tab,
        "document.getElementById('fabric').dispatchEvent(new MouseEvent('click', {bubbles: true}))",
    );
    assert_eq!(
        eval(&tab, "document.querySelectorAll('#live .dim').length"),
        0
    );

    // A busy 8×8 torus past saturation (the default scenario at 0.01):
    // many worms, splits and blocked heads, every cycle checked again; its
    // screenshot is the one in docs/.
    const BUSY: (u64, u64) = (400, 440);
    let sets = ["traffic.rate=0.01", "run.cycles=600", "run.warmup=100"];
    let page = write_page(&dir, "busy.html", None, &sets, BUSY);
    let (want, net) = expected(None, &sets, BUSY);
    tab.navigate_to(&format!("file://{}", page.display()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    let (flits, blocked, split) = check_every_cycle(&tab, &want);
    assert!(
        flits > 40 * 300 && blocked > 40 * 10,
        "{flits} flits, {blocked} blocked"
    );
    let split = split.expect("a multicast splits");
    eval(&tab, &format!("replay.goto({})", split));
    let el = tab.find_element("#live [data-kind=split]").unwrap();
    let m: usize = el
        .get_attribute_value("data-msg")
        .unwrap()
        .unwrap()
        .parse()
        .unwrap();
    el.click().unwrap();
    let info = eval(&tab, "document.getElementById('info').textContent");
    assert!(
        info.as_str()
            .unwrap()
            .starts_with(&format!("message {m}: source")),
        "{info}"
    );
    assert!(
        net.msgs[m].dests.len() >= 2,
        "a split belongs to a multicast"
    );

    // The screenshot for docs/: at the split, after the click.
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .unwrap();
    assert!(png.len() > 10_000);
    let shots = std::env::var_os("WORMCAST_SHOT_DIR").map(PathBuf::from);
    let dest = shots.unwrap_or_else(|| dir.clone());
    std::fs::write(Path::new(&dest).join("replay-torus-8x8.png"), &png).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a newcomer needs without the docs: the page opens on the first
/// cycle with traffic (not an empty cycle 0); routers are named at every
/// size (coordinates on both axes, a tooltip and a hover readout on each
/// router, also at 16×16 where no label fits inside); the key shows a
/// sample of every mark the fabric draws; the drawing grows with the window.
#[test]
fn replay_page_reads_without_the_docs() {
    let dir = std::env::temp_dir().join(format!("wormcast-replay-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    const WINDOW: (u64, u64) = (0, 60);
    let split = write_page(
        &dir,
        "split.html",
        Some("multicast-split.toml"),
        &[],
        WINDOW,
    );
    let (want, _) = expected(Some("multicast-split.toml"), &[], WINDOW);
    let first = want.iter().find(|e| !e.items.is_empty()).unwrap().c;
    assert!(first > WINDOW.0, "cycle {} is empty", WINDOW.0);
    let big_sets = [
        "network.topology=\"torus:16x16\"",
        "traffic.rate=0.002",
        "run.warmup=100",
        "run.cycles=300",
    ];
    let big = write_page(&dir, "big.html", None, &big_sets, (200, 230));
    let busy_sets = ["traffic.rate=0.01", "run.cycles=600", "run.warmup=100"];
    let busy = write_page(&dir, "busy.html", None, &busy_sets, (400, 440));

    let browser = launch((900, 700));
    let tab = browser.new_tab().unwrap();
    let open = |page: &Path| {
        tab.navigate_to(&format!("file://{}", page.display()))
            .unwrap()
            .wait_until_navigated()
            .unwrap();
    };

    open(&split);
    assert_eq!(eval(&tab, "replay.cycle()"), first, "opens on traffic");
    assert_eq!(
        eval(&tab, "document.getElementById('cycle').textContent"),
        first.to_string()
    );

    open(&big);
    // Axes: 0..15 under the columns and beside the rows.
    for axis in ["x", "y"] {
        let v = eval(
            &tab,
            &format!("JSON.stringify([...document.querySelectorAll('[data-axis={axis}]')].map(e => +e.textContent))"),
        );
        let got: Vec<u32> = serde_json::from_str(v.as_str().unwrap()).unwrap();
        assert_eq!(got, (0..16).collect::<Vec<_>>(), "{axis} axis");
    }
    // Every router has a tooltip with its coordinates.
    assert_eq!(
        eval(
            &tab,
            "[...document.querySelectorAll('[data-node]')].filter(e => e.querySelector('title').textContent === `router (${e.dataset.node})`).length"
        ),
        256
    );
    // Hovering a router names it in the control bar.
    let node = tab.find_element("[data-node=\"5,9\"]").unwrap();
    node.move_mouse_over().unwrap();
    assert_eq!(
        eval(&tab, "document.getElementById('hover').textContent"),
        "router (5,9)"
    );

    // The drawing grows with the window.
    let width = || {
        eval(
            &tab,
            "document.getElementById('fabric').getBoundingClientRect().width",
        )
        .as_f64()
        .unwrap()
    };
    let small = width();
    tab.set_bounds(headless_chrome::types::Bounds::Normal {
        left: None,
        top: None,
        width: Some(1800.0),
        height: Some(1400.0),
    })
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let large = width();
    assert!(
        large > small * 1.5 && large > 1000.0,
        "{small} px -> {large} px"
    );

    // The key has a sample of every mark the busy torus draws.
    open(&busy);
    let v = eval(
        &tab,
        r#"JSON.stringify([...new Set([...document.querySelectorAll('#live [data-kind]')].flatMap(e =>
            e.dataset.blocked ? [e.dataset.kind, "blocked"]
            : e.dataset.kind === "fifo" && +e.dataset.port >= 4 ? ["inject"] : [e.dataset.kind]))])"#,
    );
    let mut kinds: Vec<String> = serde_json::from_str(v.as_str().unwrap()).unwrap();
    kinds.sort();
    assert_eq!(
        kinds,
        ["blocked", "eject", "fifo", "inject", "link", "split"]
    );
    for k in kinds
        .iter()
        .map(String::as_str)
        .chain(["node", "lane", "wrap"])
    {
        let text = eval(
            &tab,
            &format!(
                "document.querySelector('#key [data-key={k}]')?.parentElement.textContent ?? ''"
            ),
        );
        assert!(text.as_str().unwrap().len() > 20, "key for {k}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
