fn main() {
    election_lab_www::start();
}
