//! The first frames' tool (`src/first_frames.rs`), run by the build: writes every preset's first
//! frame into a folder.
//!
//!   election-lab-first-frames OUT_DIR

fn main() {
    let Some(out) = std::env::args().nth(1) else {
        eprintln!("usage: election-lab-first-frames OUT_DIR");
        std::process::exit(2);
    };
    let zh = include_str!("../../crate/i18n/zh.json");
    if let Err(e) = election_lab::meta::install(election_lab::meta::Lang::Zh, zh) {
        eprintln!("first frames: the Chinese catalog: {e}");
        std::process::exit(1);
    }
    let out = std::path::Path::new(&out);
    let written = std::fs::create_dir_all(out).and_then(|_| {
        let files = election_lab_www::first_frames::all();
        for (name, html) in &files {
            std::fs::write(out.join(name), html)?;
        }
        Ok(files.len())
    });
    match written {
        Ok(n) => println!("first frames: {n} files in {}", out.display()),
        Err(e) => {
            eprintln!("first frames: {}: {e}", out.display());
            std::process::exit(1);
        }
    }
}
