//! The in-memory site `serve` keeps: a Markdown edit re-renders one page and gives the bytes a
//! full build gives; anything else rebuilds everything; a broken edit keeps the last good site.

#[path = "../benches/common/mod.rs"]
mod common;
mod support;

use std::path::PathBuf;

use benchsite::site::{self, Live, Options, Rebuild};
use support::Project;

fn options() -> Options {
    Options {
        base_url: Some("/".into()),
        drafts: false,
    }
}

fn started(project: &Project) -> Live {
    let mut live = Live::new(project.root.path(), options());
    let rebuild = live.rebuild(&[]).unwrap();
    assert!(!rebuild.incremental);
    assert!(rebuild.pages > 30, "{rebuild:?}");
    live
}

fn edit(project: &Project, relative: &str, edit: impl FnOnce(String) -> String) -> PathBuf {
    let path = project.root.path().join(relative);
    // A template the project does not override yet starts as its default.
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|_| support::default_template(relative));
    std::fs::write(&path, edit(text)).unwrap();
    path
}

fn assert_same_as_full_build(live: &Live, project: &Project) {
    let full = site::render(project.root.path(), &options()).unwrap();
    let kept = live.site();
    assert_eq!(
        kept.files.keys().collect::<Vec<_>>(),
        full.files.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &full.files {
        assert!(
            kept.files[path] == *bytes,
            "{path} differs from a full build"
        );
    }
}

/// An edit of a file's text.
type Change = fn(String) -> String;

#[test]
fn a_markdown_edit_rerenders_its_page_with_the_bytes_of_a_full_build() {
    let project = Project::copy_of_repo();
    let mut live = started(&project);
    let edits: [(&str, Change); 4] = [
        ("content/method.md", |text| {
            format!(
                "{text}\n## Added later\n\nDecode: {{{{ run(id=\"qwen36-moe-mtp\", field=\"decode_tok_s\") }}}}, see [runs](/runs/).\n"
            )
        }),
        ("content/_index.md", |text| {
            format!("{text}\nA new closing paragraph.\n")
        }),
        ("content/failures/qwen38-bf16.md", |text| {
            text.replacen("+++\n", "+++\ntitle = \"Renamed write-up\"\n", 1)
        }),
        ("content/method.md", |text| {
            text.replace("## Decode speed", "## Decoding speed")
        }),
    ];
    for (file, change) in edits {
        let path = edit(&project, file, change);
        let rebuild = live.rebuild(&[path]).unwrap();
        assert_eq!(
            rebuild,
            Rebuild {
                pages: 1,
                incremental: true
            },
            "{file}"
        );
        assert_same_as_full_build(&live, &project);
    }
    let method = String::from_utf8(live.site().files["method/index.html"].to_vec()).unwrap();
    assert!(method.contains("Added later"), "{method}");
    assert!(method.contains("id=\"decoding-speed\""), "{method}");
}

#[test]
fn data_template_and_new_files_rebuild_everything() {
    let project = Project::copy_of_repo();
    let mut live = started(&project);
    let data = edit(&project, "data/results.json", |text| {
        text.replacen("\"Arch Linux\"", "\"Arch Linux (edited)\"", 1)
    });
    let rebuild = live.rebuild(&[data]).unwrap();
    assert!(!rebuild.incremental);
    assert_same_as_full_build(&live, &project);
    let home = String::from_utf8(live.site().files["index.html"].to_vec()).unwrap();
    assert!(home.contains("Arch Linux (edited)"));

    project.write("content/notes.md", "# Notes\n\nNew page.\n");
    let rebuild = live
        .rebuild(&[project.root.path().join("content/notes.md")])
        .unwrap();
    assert!(!rebuild.incremental);
    assert!(live.site().files.contains_key("notes/index.html"));

    let template = edit(&project, "templates/page.html", |text| {
        text.replacen(
            "{% block main %}",
            "{% block main %}<p>template edit</p>",
            1,
        )
    });
    let rebuild = live.rebuild(&[template]).unwrap();
    assert!(!rebuild.incremental);
    let notes = String::from_utf8(live.site().files["notes/index.html"].to_vec()).unwrap();
    assert!(notes.contains("template edit"), "{notes}");
    assert_same_as_full_build(&live, &project);
}

#[test]
fn a_broken_edit_keeps_the_last_good_site_until_it_is_fixed() {
    let project = Project::copy_of_repo();
    let mut live = started(&project);
    let good = live.site();
    let original = std::fs::read_to_string(project.root.path().join("content/method.md")).unwrap();

    let path = edit(&project, "content/method.md", |text| {
        format!("{text}\n{{{{ no_such_view() }}}}\n")
    });
    let error = live.rebuild(std::slice::from_ref(&path)).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("content/method.md:"), "{message}");
    assert!(message.contains("no_such_view"), "{message}");
    assert!(*live.site() == *good, "the last good site is kept");

    // A link to a missing page, found only by the link check after the page rendered.
    std::fs::write(&path, format!("{original}\n[gone](/runs/no-such-run/)\n")).unwrap();
    let error = live.rebuild(std::slice::from_ref(&path)).unwrap_err();
    assert!(error.to_string().contains("/runs/no-such-run/"), "{error}");
    assert!(*live.site() == *good);

    std::fs::write(&path, &original).unwrap();
    live.rebuild(std::slice::from_ref(&path)).unwrap();
    assert!(*live.site() == *good);
    assert_same_as_full_build(&live, &project);

    // Another page links to a heading of this one; renaming the heading breaks that link.
    let home = edit(&project, "content/_index.md", |text| {
        format!("{text}\nSee [decode speed](/method/#decode-speed).\n")
    });
    assert!(live.rebuild(&[home]).unwrap().incremental);
    let linked = live.site();
    std::fs::write(
        &path,
        original.replace("## Decode speed", "## Decoding speed"),
    )
    .unwrap();
    let error = live.rebuild(std::slice::from_ref(&path)).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("index.html: /method/#decode-speed"),
        "{error}"
    );
    assert!(*live.site() == *linked);
}

#[test]
fn every_machines_document_is_live_and_a_hardware_note_edit_is_incremental() {
    let project = Project::copy_of_repo();
    common::three_machines(project.root.path(), &common::seed());
    project.write("content/hardware/rtx-4090.md", "The 4090 box.\n");
    let mut live = started(&project);
    let machine_page = |live: &Live| {
        String::from_utf8(live.site().files["hardware/rtx-4090/index.html"].to_vec()).unwrap()
    };
    let data = edit(&project, "data/rtx-4090.json", |text| {
        text.replacen("\"Arch Linux\"", "\"Debian on the 4090\"", 1)
    });
    let rebuild = live.rebuild(&[data]).unwrap();
    assert!(!rebuild.incremental);
    assert!(machine_page(&live).contains("Debian on the 4090"));
    assert_same_as_full_build(&live, &project);
    let note = edit(&project, "content/hardware/rtx-4090.md", |_| {
        "The 4090 box, now water-cooled.\n".into()
    });
    let rebuild = live.rebuild(&[note]).unwrap();
    assert!(rebuild.incremental, "{rebuild:?}");
    assert!(machine_page(&live).contains("now water-cooled"));
    assert_same_as_full_build(&live, &project);
}

#[test]
fn a_searched_page_edited_is_found_by_its_new_words_as_a_full_build_finds_it() {
    let project = Project::copy_of_repo();
    let mut live = started(&project);
    let shard = |live: &Live| -> serde_json::Value {
        live.site()
            .files
            .get("search/data/t-7a.json")
            .map_or(serde_json::Value::Null, |bytes| {
                serde_json::from_slice(bytes).unwrap()
            })
    };
    assert!(shard(&live).get("zebra").is_none());
    let path = edit(&project, "content/failures/qwen38-bf16.md", |text| {
        format!("{text}\nA zebra was seen in the logs.\n")
    });
    live.rebuild(&[path]).unwrap();
    let postings = shard(&live)["zebra"].clone();
    assert_eq!(postings.as_array().map(Vec::len), Some(2), "{postings}");
    assert_same_as_full_build(&live, &project);
}
