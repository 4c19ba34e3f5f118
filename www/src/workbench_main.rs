//! The workbench's entry: the full app (the library built with the `workbench` feature), started
//! by the player's page once it has fetched and compiled this wasm (see `src/workbench.rs`).

fn main() {
    election_lab_www::start();
}
