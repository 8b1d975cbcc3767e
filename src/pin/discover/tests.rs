//! Tests of module discovery: roots, folders, splitting and the naming scheme.

use super::*;
use crate::pin::split::MAX_ITEMS;

fn sf(paths: &[(&str, u64)]) -> Vec<SourceFile> {
    paths
        .iter()
        .map(|(p, s)| SourceFile {
            path: p.to_string(),
            size: *s,
        })
        .collect()
}

fn man(path: &str, text: &str) -> Manifest {
    Manifest {
        path: path.into(),
        text: text.into(),
    }
}

fn no_links(_: &str) -> &'static [String] {
    &[]
}

fn names(u: &[Unit]) -> Vec<&str> {
    u.iter().map(|u| u.name.as_str()).collect()
}

#[test]
fn group_keys_are_the_first_folder_or_two_under_a_container() {
    assert_eq!(group_key("build.rs", true), "");
    assert_eq!(group_key("src/lib.rs", true), "");
    assert_eq!(group_key("src/lib.rs", false), "src");
    assert_eq!(group_key("app/main.rs", true), "app");
    assert_eq!(group_key("src/parse/lex.rs", true), "src/parse");
    assert_eq!(group_key("src/parse/deep/x.rs", false), "src/parse");
    assert_eq!(group_key("tools/gen/x.rs", true), "tools");
}

#[test]
fn cargo_workspace_crates_and_their_folders() {
    let files = sf(&[
        ("crates/core/src/lib.rs", 5000),
        ("crates/core/src/parse/mod.rs", 5000),
        ("crates/core/src/parse/lex.rs", 5000),
        ("crates/core/src/tiny/mod.rs", 10),
        ("crates/cli/src/main.rs", 3000),
        ("xtask/build.rs", 100),
    ]);
    let m = [
        man("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
        man(
            "crates/core/Cargo.toml",
            "[package]\nname = \"core\"\n[dependencies]\nregex = \"1\"\n",
        ),
        man("crates/cli/Cargo.toml", "[package]\nname = \"cli\"\n"),
    ];
    let u = discover("proj", &files, &[], &m, &no_links);
    assert_eq!(
        names(&u),
        ["proj (top level)", "cli", "core", "core: src/parse"]
    );
    let core = &u[2];
    assert_eq!(
        core.files,
        ["crates/core/src/lib.rs", "crates/core/src/tiny/mod.rs"]
    );
    assert_eq!(core.deps, ["regex"]);
    assert_eq!(u[0].files, ["xtask/build.rs"]);
}

#[test]
fn python_go_js_and_java_roots() {
    let files = sf(&[
        ("py/pkg/__init__.py", 3000),
        ("py/pkg/sub/__init__.py", 3000),
        ("gosvc/internal/auth/auth.go", 3000),
        ("gosvc/cmd/server/main.go", 3000),
        ("web/src/index.ts", 3000),
        ("jv/src/main/java/com/acme/app/App.java", 3000),
        ("jv/src/main/java/com/acme/app/util/Str.java", 3000),
    ]);
    let m = [
        man(
            "py/pyproject.toml",
            "[project]\nname = \"pyproj\"\ndependencies = [\"requests>=2\"]\n",
        ),
        man(
            "gosvc/go.mod",
            "module github.com/acme/gosvc\nrequire (\n\tgithub.com/spf13/cobra v1\n)\n",
        ),
        man(
            "web/package.json",
            r#"{"name":"web","dependencies":{"react":"18"}}"#,
        ),
        man(
            "jv/pom.xml",
            "<project><artifactId>jv</artifactId><dependencies><dependency><artifactId>guava</artifactId></dependency></dependencies></project>",
        ),
    ];
    let u = discover("proj", &files, &[], &m, &no_links);
    assert_eq!(
        names(&u),
        [
            "gosvc: cmd/server",
            "gosvc: internal/auth",
            "jv (main java)",
            "jv (main java): util",
            "pkg",
            "pkg: sub",
            "web"
        ]
    );
    assert_eq!(u[0].deps, ["cobra"]);
    assert_eq!(u[2].deps, ["guava"]);
    assert_eq!(u[4].deps, ["requests"]);
    assert_eq!(u[6].deps, ["react"]);
}

#[test]
fn plain_project_uses_top_level_folders() {
    let files = sf(&[
        ("lib/common.sh", 3000),
        ("lib/git.sh", 3000),
        ("scripts/generate-pin.sh", 3000),
        ("ralph.sh", 3000),
    ]);
    let u = discover(
        "newralph",
        &files,
        &["lib/README.md".to_string()],
        &[],
        &no_links,
    );
    assert_eq!(names(&u), ["newralph (top level)", "lib", "scripts"]);
    assert_eq!(u[1].docs, ["lib/README.md"]);
}

#[test]
fn large_flat_folders_split_into_named_parts_without_globs() {
    let mut v = Vec::new();
    v.push(("src/lib.rs".to_string(), 3000));
    for stem in ["alpha", "beta", "gamma", "delta", "omega"] {
        for k in 0..4 {
            v.push((format!("src/{stem}_{k}.rs"), 3000));
        }
        v.push((format!("src/{stem}_test.rs"), 3000));
    }
    for i in 0..14 {
        v.push((format!("src/widget/w{i:02}.rs"), 3000));
    }
    v.push(("src/widget.rs".to_string(), 3000));
    v.push(("src/one/x.rs".to_string(), 3000));
    let files: Vec<SourceFile> = v
        .into_iter()
        .map(|(path, size)| SourceFile { path, size })
        .collect();
    let m = [man("Cargo.toml", "[package]\nname = \"app\"\n")];
    let u = discover("p", &files, &[], &m, &no_links);
    // `src/widget/` and `src/one/` are modules of their own (one level under `src/`), so
    // `widget.rs` is a part of the flat `src/` here: the part and the folder keep apart.
    assert_eq!(
        names(&u),
        [
            "app",
            "app (alpha)",
            "app (beta)",
            "app (delta)",
            "app (gamma)",
            "app (omega)",
            "app (widget)",
            "app (tests)",
            "app: src/one",
            "app: src/widget"
        ]
    );
    assert!(u[..8].iter().all(|u| u.family == "app"));
    assert_eq!(u[9].family, "app: src/widget");
    assert_eq!(u[0].files, ["src/lib.rs"]);
    assert_eq!(u[1].files.len(), 4);
    assert_eq!(u[7].kind, Some("tests"));
    assert_eq!(u[7].files.len(), 5);
    assert!(
        u.iter()
            .all(|u| u.items.len() <= MAX_ITEMS && u.items == u.files)
    );
    assert!(u[..7].iter().all(|u| u.kind.is_none()));
}

#[test]
fn names_are_unique_and_follow_one_scheme() {
    // Two packages called `utils`, a flat folder with a `tests.rs` beside `*_test.rs` files
    // and a stem `tests` could give the same name twice.
    let mut v: Vec<(String, u64)> = vec![
        ("packages/utils/index.ts".into(), 3000),
        ("tools/utils/index.ts".into(), 3000),
        ("tools/utils/src/io/a.ts".into(), 3000),
        ("tools/utils/src/io/b.ts".into(), 3000),
        ("src/lib.rs".into(), 3000),
        ("src/tests.rs".into(), 3000),
    ];
    for stem in ["alpha", "beta", "gamma", "delta"] {
        for k in 0..4 {
            v.push((format!("src/{stem}_{k}.rs"), 3000));
        }
        v.push((format!("src/{stem}_test.rs"), 3000));
    }
    let files: Vec<SourceFile> = v
        .into_iter()
        .map(|(path, size)| SourceFile { path, size })
        .collect();
    let m = [
        man("Cargo.toml", "[package]\nname = \"utils\"\n"),
        man("packages/utils/package.json", r#"{"name":"utils"}"#),
        man("tools/utils/package.json", r#"{"name":"utils"}"#),
    ];
    let u = discover("p", &files, &[], &m, &no_links);
    let got = names(&u);
    assert_eq!(
        got,
        [
            "utils",
            "utils (alpha)",
            "utils (beta)",
            "utils (delta)",
            "utils (gamma)",
            "utils (tests)",
            "packages/utils",
            "tools/utils",
            "tools/utils: src/io"
        ]
    );
    let tests = &u[5];
    assert_eq!(tests.files.len(), 5, "{:?}", tests.files);
    assert!(tests.files.contains(&"src/tests.rs".to_string()));
    let mut lower: Vec<String> = got.iter().map(|n| n.to_lowercase()).collect();
    lower.sort();
    lower.dedup();
    assert_eq!(lower.len(), got.len());
    let mut used = FastSet::default();
    assert_eq!(unique_name("a".into(), &mut used), "a");
    assert_eq!(unique_name("A".into(), &mut used), "A #2");
    assert_eq!(unique_name("a".into(), &mut used), "a #3");
}

#[test]
fn folder_kinds_by_the_deepest_marking_folder() {
    assert_eq!(folder_kind("src/pin"), None);
    assert_eq!(folder_kind("tests"), Some("tests"));
    assert_eq!(folder_kind("tests/fixtures/compat"), Some("fixtures"));
    assert_eq!(folder_kind("examples/demo/src"), Some("examples"));
    assert_eq!(folder_kind("benches"), Some("benchmarks"));
    let mut sorted = KIND_DIRS.to_vec();
    sorted.sort();
    assert_eq!(sorted, KIND_DIRS);
}
