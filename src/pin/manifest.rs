//! Manifests: the package name and library dependencies a project file declares.
//!
//! Owns reading Cargo.toml, package.json, pyproject.toml, setup.cfg, go.mod, pom.xml and
//! build.gradle[.kts] leniently (an unreadable manifest declares nothing). Pure: texts in, names
//! out. Does not own which folders form modules (see [`super::discover`]).

use super::paths::base_name;
use super::source::Manifest;

/// The library name of a dependency spec (`github.com/spf13/cobra` → `cobra`,
/// `requests>=2.0` → `requests`, `@scope/pkg` stays).
pub(crate) fn lib_name(spec: &str) -> Option<String> {
    let s = spec.trim();
    let s = if s.starts_with('@') {
        s
    } else {
        s.rsplit('/').next().unwrap_or(s)
    };
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | '/')))
        .unwrap_or(s.len());
    let n = s[..end].trim_end_matches('.');
    (!n.is_empty()).then(|| n.to_string())
}

fn table_keys(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(toml::Value::as_table)
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default()
}

/// What a manifest declares: the package name (if it gives one) and library names.
type Package = (Option<String>, Vec<String>);

/// Name and dependencies a manifest declares (`None` when it declares no package).
pub(crate) fn read_manifest(m: &Manifest) -> Option<(Option<String>, Vec<String>)> {
    let text = m.text.as_str();
    match base_name(&m.path) {
        "Cargo.toml" => cargo_toml(text),
        "package.json" => package_json(text),
        "pyproject.toml" => pyproject_toml(text),
        "setup.cfg" => Some((setup_cfg_name(text), Vec::new())),
        "go.mod" => Some(go_mod(text)),
        "pom.xml" => Some(pom_xml(text)),
        "build.gradle" | "build.gradle.kts" => Some((None, gradle_deps(text))),
        _ => None,
    }
}

/// `[package] name`, `[dependencies]` and `[build-dependencies]` (a workspace: `None`).
fn cargo_toml(text: &str) -> Option<Package> {
    let v: toml::Value = toml::from_str(text).ok()?;
    let name = v.get("package")?.get("name")?.as_str()?.to_string();
    let mut deps = table_keys(v.get("dependencies"));
    deps.extend(table_keys(v.get("build-dependencies")));
    Some((Some(name), deps))
}

/// `name`, `dependencies` and `peerDependencies`.
fn package_json(text: &str) -> Option<Package> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let name = v.get("name").and_then(|n| n.as_str()).map(String::from);
    let mut deps = Vec::new();
    for k in ["dependencies", "peerDependencies"] {
        if let Some(o) = v.get(k).and_then(|d| d.as_object()) {
            deps.extend(o.keys().cloned());
        }
    }
    Some((name, deps))
}

/// PEP 621 `[project]` or Poetry's `[tool.poetry]`: name and dependencies (not `python`).
fn pyproject_toml(text: &str) -> Option<Package> {
    let v: toml::Value = toml::from_str(text).ok()?;
    let project = v.get("project");
    let poetry = v.get("tool").and_then(|t| t.get("poetry"));
    let name = project
        .or(poetry)
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .map(String::from);
    let mut deps: Vec<String> = project
        .and_then(|p| p.get("dependencies"))
        .and_then(|d| d.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().and_then(lib_name))
                .collect()
        })
        .unwrap_or_default();
    deps.extend(
        table_keys(poetry.and_then(|p| p.get("dependencies")))
            .into_iter()
            .filter(|d| d != "python"),
    );
    Some((name, deps))
}

/// The `name = …` line of a setup.cfg.
fn setup_cfg_name(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "name").then(|| v.trim().to_string())
    })
}

/// The `module` line and the `require` lines and blocks of a go.mod.
fn go_mod(text: &str) -> Package {
    let mut name = None;
    let mut deps = Vec::new();
    let mut in_require = false;
    for l in text.lines() {
        let l = l.trim();
        if let Some(rest) = l.strip_prefix("module ") {
            name = lib_name(rest);
        } else if l.starts_with("require (") {
            in_require = true;
        } else if in_require && l.starts_with(')') {
            in_require = false;
        } else if let Some(rest) = l.strip_prefix("require ") {
            deps.extend(rest.split_whitespace().next().and_then(lib_name));
        } else if in_require && !l.starts_with("//") {
            deps.extend(l.split_whitespace().next().and_then(lib_name));
        }
    }
    (name, deps)
}

/// A pom.xml's artifact ids outside `<parent>`: the first is its own, the others its libraries.
fn pom_xml(text: &str) -> Package {
    let body = match (text.find("<parent>"), text.find("</parent>")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &text[..a], &text[b..]),
        _ => text.to_string(),
    };
    let ids: Vec<String> = body
        .split("<artifactId>")
        .skip(1)
        .filter_map(|s| s.split("</artifactId>").next())
        .map(|s| s.trim().to_string())
        .collect();
    let name = ids.first().cloned();
    (name, ids.into_iter().skip(1).collect())
}

/// The artifacts of the quoted `group:artifact:version` coordinates of a build.gradle.
fn gradle_deps(text: &str) -> Vec<String> {
    text.split(['\'', '"'])
        .filter_map(|s| {
            let mut parts = s.split(':');
            let (_group, art) = (parts.next()?, parts.next()?);
            parts.next()?;
            (!art.is_empty() && !art.contains(' ')).then(|| art.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn man(path: &str, text: &str) -> Manifest {
        Manifest {
            path: path.into(),
            text: text.into(),
        }
    }

    #[test]
    fn library_names() {
        assert_eq!(lib_name("github.com/spf13/cobra").as_deref(), Some("cobra"));
        assert_eq!(lib_name("requests>=2.0").as_deref(), Some("requests"));
        assert_eq!(lib_name("@scope/pkg").as_deref(), Some("@scope/pkg"));
        assert_eq!(lib_name("  ").as_deref(), None);
    }

    #[test]
    fn reads_each_ecosystem() {
        let cargo = man(
            "Cargo.toml",
            "[package]\nname = \"a\"\n[dependencies]\nclap = \"4\"\n[build-dependencies]\ncc = \"1\"\n",
        );
        assert_eq!(
            read_manifest(&cargo),
            Some((Some("a".into()), vec!["clap".into(), "cc".into()]))
        );
        let ws = man("Cargo.toml", "[workspace]\nmembers = []\n");
        assert_eq!(read_manifest(&ws), None);
        let poetry = man(
            "pyproject.toml",
            "[tool.poetry]\nname = \"p\"\n[tool.poetry.dependencies]\npython = \"^3\"\nhttpx = \"*\"\n",
        );
        assert_eq!(
            read_manifest(&poetry),
            Some((Some("p".into()), vec!["httpx".into()]))
        );
        let cfg = man("setup.cfg", "[metadata]\nname = legacy\n");
        assert_eq!(read_manifest(&cfg), Some((Some("legacy".into()), vec![])));
        let gradle = man(
            "build.gradle",
            "dependencies { implementation 'com.google.guava:guava:33.0' }",
        );
        assert_eq!(read_manifest(&gradle), Some((None, vec!["guava".into()])));
        let gomod = man(
            "go.mod",
            "module example.com/svc\nrequire golang.org/x/sync v0.1\n",
        );
        assert_eq!(
            read_manifest(&gomod),
            Some((Some("svc".into()), vec!["sync".into()]))
        );
        assert_eq!(read_manifest(&man("package.json", "{not json")), None);
        assert_eq!(read_manifest(&man("README.md", "x")), None);
    }
}
