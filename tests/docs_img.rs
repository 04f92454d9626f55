//! The pictures in docs/img/ exist and are real images, not empty or
//! truncated files: every picture `scripts/shots.sh` regenerates, and every
//! image a page of docs/ shows. Existence and size only, so it is fast and
//! needs neither a browser nor GTKWave; `bash scripts/shots.sh` redraws them.

use std::path::Path;

/// What `scripts/shots.sh` writes, with the smallest size a real picture of
/// it has (bytes).
const SHOTS: [(&str, u64); 12] = [
    ("heatmap-dstm1-16x16-torus.svg", 50_000),
    ("heatmap-dstm1-16x16-torus.png", 50_000),
    ("heatmap-brcp-16x16-mesh.svg", 50_000),
    ("heatmap-brcp-16x16-mesh.png", 50_000),
    ("sweep-dstm-8x8.svg", 5_000),
    ("sweep-dstm-8x8.png", 20_000),
    ("replay-torus-8x8.png", 30_000),
    ("gtkwave-native-multicast.png", 20_000),
    ("gtkwave-divert-split.png", 20_000),
    ("gtkwave-mesh-path-worm.png", 20_000),
    ("gtkwave-verilog-multicast.png", 20_000),
    ("python-fig9.png", 10_000),
];

fn img() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/img"))
}

#[test]
fn every_shot_exists_and_is_an_image() {
    let script =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/shots.sh")).unwrap();
    for (name, min) in SHOTS {
        let path = img().join(name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            bytes.len() as u64 >= min,
            "{name}: {} bytes, a real one has {min}+",
            bytes.len()
        );
        if name.ends_with(".png") {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name}: not a PNG");
        } else {
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                text.starts_with("<svg") && text.trim_end().ends_with("</svg>"),
                "{name}"
            );
        }
        // The script names every picture (python-fig9 comes from the
        // Python package, which the script says).
        let stem = name.rsplit_once('.').unwrap().0;
        assert!(
            script.contains(stem),
            "scripts/shots.sh does not mention {stem}"
        );
    }
}

/// Every `img/...` a docs page shows is in docs/img/.
#[test]
fn every_image_the_docs_show_exists() {
    let docs = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/docs"));
    let mut shown = 0;
    for e in std::fs::read_dir(docs).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for part in text.split("](img/").skip(1) {
            let name = &part[..part.find(')').unwrap()];
            assert!(
                img().join(name).is_file(),
                "{}: img/{name} is missing",
                path.display()
            );
            shown += 1;
        }
    }
    assert!(shown >= 8, "the docs show {shown} pictures");
}
