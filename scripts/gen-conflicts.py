#!/usr/bin/env python3
"""Generate the conflict-heavy plan of scripts/bench-conflicts.sh: a small Python project and
a prd.json of 8 independent stories, four pairs of which edit the same line of the same file
(a greeting, a unit scale, a store path, a report title), with a fake agent that makes each
story's edit after sleeping T seconds.

The stories are written as a person would: some name the file, some only the function or the
words of the module, so the prediction has to come from the where-to-look ranking too. The
agent does not read its prompt; it knows each story's edit (the bench measures scheduling, not
agents).

Usage: gen-conflicts.py DIR T   (DIR: the project, created; its agent is DIR/../bin/edit-agent)
"""
import json
import os
import stat
import sys

FILES = {
    "src/greet.py": 'def greeting():\n    return "hello"\n\n\ndef farewell():\n    return "bye"\n',
    "src/units.py": 'def scale(x):\n    return x * 1\n\n\ndef offset(x):\n    return x + 0\n',
    "src/store.py": 'def path():\n    return "data.db"\n\n\ndef tables():\n    return ["users"]\n',
    "src/report.py": 'def title():\n    return "Report"\n\n\ndef footer():\n    return "end"\n',
    "src/app.py": (
        "from greet import greeting\nfrom units import scale\nfrom store import path\n"
        "from report import title\n\n\ndef main():\n"
        "    print(greeting(), scale(2), path(), title())\n"
    ),
    "tests/test_app.py": "def test_nothing():\n    assert True\n",
    "README.md": "# demo\n\nA tiny app: a greeting, units, a store and a report.\n",
}

# (id, title, description, file, the new line 2)
STORIES = [
    ("S-1", "Greet in French", "Make `greeting()` in src/greet.py return \"bonjour\".",
     "src/greet.py", '    return "bonjour"'),
    ("S-2", "Shout the greeting", "greeting() should return the greeting in capitals: \"HELLO\".",
     "src/greet.py", '    return "HELLO"'),
    ("S-3", "Scale by ten", "Change `scale` in src/units.py to multiply by 10.",
     "src/units.py", "    return x * 10"),
    ("S-4", "Scale by a hundred", "The units' scale factor becomes 100: scale(x) returns x * 100.",
     "src/units.py", "    return x * 100"),
    ("S-5", "Store in sqlite", "The store's database file becomes data.sqlite (src/store.py).",
     "src/store.py", '    return "data.sqlite"'),
    ("S-6", "Store under var", "Keep the store's database under /var/lib: path() returns /var/lib/app.db.",
     "src/store.py", '    return "/var/lib/app.db"'),
    ("S-7", "Report title of the day", "report.py: title() says \"Report of the day\".",
     "src/report.py", '    return "Report of the day"'),
    ("S-8", "Report title in French", "The report's title() returns \"Rapport\".",
     "src/report.py", '    return "Rapport"'),
]


def main():
    proj, t = sys.argv[1], sys.argv[2]
    os.makedirs(proj, exist_ok=True)
    for rel, text in FILES.items():
        path = os.path.join(proj, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    stories = [
        {"id": sid, "title": title, "description": desc,
         "acceptanceCriteria": ["the change is made", "nothing else changes"],
         "priority": n + 1, "passes": False, "notes": ""}
        for n, (sid, title, desc, _, _) in enumerate(STORIES)
    ]
    with open(os.path.join(proj, "prd.json"), "w") as f:
        # One story per line, so the agent's sed finds its own.
        f.write('{\n"project": "bench", "branchName": "ralph/conflicts", "description": "bench",\n"userStories": [\n')
        f.write(",\n".join(json.dumps(s) for s in stories))
        f.write("\n]\n}\n")
    with open(os.path.join(proj, ".gitignore"), "w") as f:
        f.write(".ralph/\n")
    with open(os.path.join(proj, "check.sh"), "w") as f:
        f.write("test -f prd.json\n")
    with open(os.path.join(proj, "progress.txt"), "w") as f:
        f.write("# progress\n")
    bindir = os.path.join(os.path.dirname(os.path.abspath(proj)), "bin")
    os.makedirs(bindir, exist_ok=True)
    cases = "\n".join(
        f"  {sid}) file='{path}'; line='{line}' ;;" for sid, _, _, path, line in STORIES
    )
    agent = f"""#!/bin/sh
cat >/dev/null
sleep {t}
case "$RALPH_STORY_ID" in
{cases}
esac
# Line 2 of the story's file becomes its line: the pairs edit the same line.
awk -v l="$line" 'NR == 2 {{ print l; next }} {{ print }}' "$file" > "$file.new" && mv "$file.new" "$file"
sed -i -E "s/(\\"id\\": \\"$RALPH_STORY_ID\\"[^}}]*\\"passes\\": )false/\\1true/" prd.json
git add -A >/dev/null && git commit -qm "$RALPH_STORY_ID" >/dev/null
echo "STORY COMPLETE: $RALPH_STORY_ID"
"""
    path = os.path.join(bindir, "edit-agent")
    with open(path, "w") as f:
        f.write(agent)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


if __name__ == "__main__":
    main()
