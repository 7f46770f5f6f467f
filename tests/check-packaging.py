#!/usr/bin/env python3
# check-packaging.py: checks of the packaging that no upstream validator does.
#
#   check-packaging.py potfiles SOURCE_ROOT
#       every file under POTFILES_FOLDERS (app/, capture/, cli/, data/,
#       model/, view/, widgets/) with translatable strings is listed in
#       po/POTFILES.in, every file listed there exists, and xgettext leaves
#       no msgid that is only "%" (what a G_*_FORMAT macro inside a
#       translatable string gives)
#   check-packaging.py flatpak MANIFEST
#       the Flatpak manifest is valid JSON for dev.planar.Planar on a supported
#       GNOME runtime, with the permissions a viewer needs and none broader,
#       every source pinned, and a module for every dependency() of meson that
#       the runtime lacks (flatpak/runtime-pkgconfig.txt lists what it has);
#       Planar's own pinned commit is in the checkout's history and carries
#       this manifest's runtime and modules (skipped outside git);
#       flatpak-builder --show-manifest parses it where it is installed
#   check-packaging.py marked SOURCE_ROOT
#       every message given to g_set_error(), g_set_error_literal() or
#       g_prefix_error() in MARKED_FOLDERS, and every Trace Health finding
#       of the model, is inside _(), N_() or a plural form when it has words
#       (a bare "%s: " has none)
#   check-packaging.py compose SOURCE_ROOT BUILD_ROOT
#       appstreamcli compose, run on the installed files (metainfo, desktop
#       entry, icon, each po/LINGUAS catalog), accepts them and reports for
#       each language the share of the template's strings it translates
#   check-packaging.py mime MIME_XML
#       the shared-mime-info package is well formed and update-mime-database
#       accepts it
#
# Prints TAP; exits non-zero on the first failed check group.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

APP_ID = "dev.planar.Planar"
# The folders whose translatable strings must be in po/POTFILES.in.
POTFILES_FOLDERS = ("app", "capture", "cli", "data", "model", "view", "widgets")
# The folders whose error messages must be marked for translation, and the
# calls that take one: (function, index of the message argument); add() is
# how model/query/planar-health.c records a finding; the planar_cli_*()
# calls are planar-cli's errors, warnings, help summaries and progress.
MARKED_FOLDERS = ("app", "capture", "cli", "model", "view", "widgets")
MESSAGE_CALLS = (("g_set_error", 3), ("g_set_error_literal", 3), ("g_prefix_error", 1),
                 ("g_prefix_error_literal", 1), ("add", 7), ("planar_cli_fail", 1), ("planar_cli_warn", 0),
                 ("planar_cli_parse", 2), ("planar_cli_progress", 0))
TRANSLATED = re.compile(r"^(?:_|N_|C_|NC_|ngettext|g_dngettext|g_dgettext|g_dpgettext2?)\s*\(")
MIME_TYPE = "application/x-xplane+protobuf"

# _("..."), N_("..."), C_(...), NC_(...) and gettext calls in C; translatable
# attributes in GtkBuilder files.
C_MARKERS = re.compile(r'(?<![A-Za-z0-9_])(?:N_|_|C_|NC_|g_dgettext|g_dngettext|g_dpgettext2?)\s*\(')
UI_MARKERS = re.compile(r'translatable="yes"')
# The same with the plural calls, for the 'marked' check.
C_MARKERS_ALL = re.compile(r'(?<![A-Za-z0-9_])(?:N_|_|C_|NC_|ngettext|g_dgettext|g_dngettext|g_dpgettext2?)\s*\(')
# Files whose format xgettext reads without markers (desktop entries,
# AppStream, GSettings schemas) are translatable by nature.
NATURALLY_TRANSLATABLE = (".desktop.in", ".metainfo.xml.in", ".gschema.xml")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        self.n += 1
        print(("ok" if ok else "not ok") + " %d - %s" % (self.n, what))
        if not ok:
            self.failed += 1
            for line in detail.splitlines():
                print("# " + line)

    def skip(self, what, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, what, why))

    def finish(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def has_translatable_strings(path):
    if path.endswith(NATURALLY_TRANSLATABLE):
        return True
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return False
    if path.endswith((".c", ".h")):
        # Comments and the markers' own definitions do not count.
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        text = re.sub(r"#\s*define\s+N?_\(.*", "", text)
        return C_MARKERS.search(text) is not None
    if path.endswith(".ui"):
        return UI_MARKERS.search(text) is not None
    return False


def potfiles(root):
    listed = []
    with open(os.path.join(root, "po", "POTFILES.in"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                listed.append(line)
    return listed


def make_template(root, pot, c_only=False):
    """Writes the translation template of the files in POTFILES.in to @pot
    with the keywords of meson's i18n 'glib' preset; returns the run."""
    files = [p for p in potfiles(root) if os.path.isfile(os.path.join(root, p))]
    if c_only:
        files = [p for p in files if p.endswith((".c", ".h"))]
    return subprocess.run(["xgettext", "--from-code=UTF-8", "--add-comments", "-o", pot,
                           "--keyword=_", "--keyword=N_", "--keyword=C_:1c,2", "--keyword=NC_:1c,2",
                           "--keyword=g_dcgettext:2", "--keyword=g_dngettext:2,3", "--keyword=g_dpgettext2:2c,3",
                           "--keyword=ngettext:1,2", "--flag=g_strdup_printf:1:c-format"] + files,
                          cwd=root, capture_output=True, text=True)


def check_compose(tap, root, build):
    compose_ok = subprocess.run(["appstreamcli", "compose", "--help"], capture_output=True, text=True) \
        if shutil.which("appstreamcli") else None
    if compose_ok is None or compose_ok.returncode != 0:
        tap.skip("appstreamcli compose accepts the installed files",
                 "appstreamcli compose is not installed (Debian: appstream-compose)")
        return
    with open(os.path.join(root, "po", "LINGUAS"), encoding="utf-8") as f:
        languages = [w for line in f if not line.startswith("#") for w in line.split()]
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "tree")
        share = os.path.join(tree, "usr", "share")
        for src, dest in ((os.path.join(build, "data", APP_ID + ".metainfo.xml"), "metainfo"),
                          (os.path.join(build, "data", APP_ID + ".desktop"), "applications"),
                          (os.path.join(root, "data", "icons", "hicolor", "scalable", "apps", APP_ID + ".svg"),
                           os.path.join("icons", "hicolor", "scalable", "apps"))):
            os.makedirs(os.path.join(share, dest), exist_ok=True)
            shutil.copy(src, os.path.join(share, dest))
        pot = os.path.join(tmp, "planar.pot")
        run = make_template(root, pot)
        tap.check(run.returncode == 0, "xgettext writes the template", run.stderr)
        truth = {}
        for lang in languages:
            mo_dir = os.path.join(share, "locale", lang, "LC_MESSAGES")
            os.makedirs(mo_dir)
            po = os.path.join(root, "po", lang + ".po")
            subprocess.run(["msgfmt", "-o", os.path.join(mo_dir, "planar.mo"), po], check=True)
            merged = os.path.join(tmp, lang + ".po")
            subprocess.run(["msgmerge", "--quiet", "--no-fuzzy-matching", "-o", merged, po, pot], check=True)
            stats = subprocess.run(["msgfmt", "--statistics", "-o", os.devnull, merged],
                                   capture_output=True, text=True).stderr
            numbers = {k: int(n) for n, k in re.findall(r"(\d+) (translated|fuzzy|untranslated)", stats)}
            total = sum(numbers.values())
            truth[lang] = (numbers.get("translated", 0), total)
        out = os.path.join(tmp, "out")
        run = subprocess.run(["appstreamcli", "compose", "--no-net", "--no-color", "--origin=planar",
                              "--prefix=/usr", "--result-root=" + out, "--print-report=full", tree],
                             capture_output=True, text=True)
        tap.check(run.returncode == 0 and not re.search(r"^\s*E:", run.stdout, re.M),
                  "appstreamcli compose accepts the installed files", run.stdout + run.stderr)
        catalogs = [os.path.join(d, n) for d, _s, names in os.walk(out) for n in names
                    if n.startswith("planar.xml")]
        tap.check(len(catalogs) == 1, "compose writes one catalog", "found: %r" % catalogs)
        if len(catalogs) != 1:
            return
        opener = gzip.open if catalogs[0].endswith(".gz") else open
        with opener(catalogs[0], "rb") as f:
            catalog = ET.parse(f).getroot()
    reported = {l.text: int(l.get("percentage", "100")) for l in catalog.iter("lang")}
    for lang in languages:
        translated, total = truth[lang]
        real = 100 * translated // total if total else 0
        tap.check(lang in reported, "compose lists %s" % lang, "languages: %r" % reported)
        tap.check(reported.get(lang) is not None and abs(reported[lang] - real) <= 1,
                  "compose reports %s at the share of the template it translates (%d of %d strings, %d %%)"
                  % (lang, translated, total, real),
                  "compose reports %r %%: it counts only what the catalogs hold, so a language looks "
                  "complete when it is the only one; translate the rest" % reported.get(lang))


def call_arguments(text, start):
    """The top-level arguments of the call whose "(" is at @start."""
    args, depth, current, i = [], 0, [], start
    while i < len(text):
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            current.append(text[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current).strip())
                return args
        elif c == "," and depth == 1:
            args.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    return args


def unmarked_part(message):
    """@message less every marked call in it (_("..."), ngettext (...), ...)."""
    out, i = [], 0
    for m in C_MARKERS_ALL.finditer(message):
        if m.start() < i:
            continue
        out.append(message[i:m.start()])
        depth, j = 0, m.end() - 1
        while j < len(message):
            c = message[j]
            if c == '"':
                j += 1
                while j < len(message) and message[j] != '"':
                    j += 2 if message[j] == "\\" else 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    out.append(message[i:])
    return "".join(out)


def check_marked(tap, root):
    unmarked = []
    for top in MARKED_FOLDERS:
        for folder, _dirs, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".c"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
                text = re.sub(r"//[^\n]*", "", text)
                for function, index in MESSAGE_CALLS:
                    for m in re.finditer(r"(?<![A-Za-z0-9_])%s\s*\(" % function, text):
                        args = call_arguments(text, m.end() - 1)
                        if len(args) <= index:
                            continue
                        message = args[index]
                        # What the markers leave: a choice between marked
                        # messages ("c ? _("a") : _("b")") leaves no words.
                        literal = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', unmarked_part(message)))
                        if TRANSLATED.match(message) or not re.search(r"[A-Za-z]{2}", literal):
                            continue
                        line = text.count("\n", 0, m.start()) + 1
                        unmarked.append("%s:%d: %s(..., %s)" % (os.path.relpath(path, root), line, function,
                                                                message.replace("\n", " ")))
    tap.check(not unmarked, "every error message in %s is marked for translation" % ", ".join(MARKED_FOLDERS),
              "\n".join(unmarked))


def check_potfiles(tap, root):
    listed = potfiles(root)

    missing_on_disk = [p for p in listed if not os.path.isfile(os.path.join(root, p))]
    tap.check(not missing_on_disk, "every file in POTFILES.in exists",
              "\n".join("listed but missing: " + p for p in missing_on_disk))
    tap.check(len(listed) == len(set(listed)), "POTFILES.in lists each file once")
    tap.check(listed == sorted(listed), "POTFILES.in is sorted")

    needed = []
    for top in POTFILES_FOLDERS:
        for folder, _dirs, files in os.walk(os.path.join(root, top)):
            for name in files:
                path = os.path.join(folder, name)
                if has_translatable_strings(path):
                    needed.append(os.path.relpath(path, root))
    unlisted = sorted(set(needed) - set(listed))
    tap.check(not unlisted, "every file with translatable strings is in POTFILES.in",
              "\n".join("not listed: " + p for p in unlisted))

    # The template as meson's i18n (preset glib) makes it: a G_*_FORMAT
    # macro inside a msgid leaves just "%" there, which no one can translate.
    if shutil.which("xgettext") is None:
        tap.skip("no msgid is a bare \"%\"", "xgettext is not installed")
        return
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, "planar.pot")
        run = make_template(root, pot, c_only=True)
        text = open(pot, encoding="utf-8").read() if os.path.exists(pot) else ""
    tap.check(run.returncode == 0, "xgettext reads the C sources", run.stderr)
    bare = re.findall(r'(#: [^\n]*)\n(?:#[^\n]*\n)*msgid "%"\n', text)
    tap.check(not bare, "no msgid is a bare \"%\" (write \"%\" PRIu64, not G_GUINT64_FORMAT)",
              "\n".join(bare))


# What each of the manifest's modules gives meson (pkg-config modules); the
# 'flatpak' check needs every dependency() the runtime lacks in here.
MODULE_PROVIDES = {
    "abseil-cpp": ["absl_base", "absl_strings", "absl_status", "absl_synchronization"],
    "c-ares": ["libcares"],
    "re2": ["re2"],
    "protobuf": ["protobuf"],
    "protobuf-c": ["libprotobuf-c"],
    "yajl": ["yajl"],
    "grpc": ["grpc", "gpr"],
}
# The GNOME runtime the manifest is checked against (flatpak/runtime-pkgconfig.txt
# lists its pkg-config modules); older ones are end of life.
MIN_GNOME_RUNTIME = 50
# dependency() names that are not pkg-config modules.
NOT_PKG_CONFIG = {"threads", "dl"}


def meson_dependencies(root):
    """(name, file) for every dependency('NAME') of the build that the
    Flatpak configures: the tests, the fuzzers and CUPTI are not built there."""
    found = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = [d for d in dirs if not d.startswith((".", "_build"))
                   and os.path.join(rel, d) not in ("./tests", "tests", "./flatpak", "flatpak")
                   and d not in ("cupti",)]
        if "meson.build" not in files:
            continue
        path = os.path.join(folder, "meson.build")
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"#.*", "", f.read())
        for m in re.finditer(r"(?<![A-Za-z0-9_.])dependency\(\s*'([^']+)'", text):
            found.append((m.group(1), os.path.relpath(path, root)))
    return found


def runtime_pkgconfig(path):
    """pkg-config module -> element, from flatpak/runtime-pkgconfig.txt."""
    mods = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            element, *names = line.split()
            for name in names:
                if name != "-":
                    mods[name] = element
    return mods


def check_planar_commit(tap, flatpak_dir, name, manifest, source):
    """The commit Planar's git source names is in the history of the
    checkout the manifest sits in, was made for this manifest (its own copy
    has the same runtime and modules: not a commit from before them), and
    its tag, where the tag exists, points at it. Skipped outside a git
    checkout, or in a shallow one."""
    commit = source.get("commit", "")
    tag = source.get("tag", "")
    what = "Planar's pinned commit %s is in this repository's history" % commit[:12]

    def git(*args):
        return subprocess.run(["git", "-C", flatpak_dir] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)

    try:
        inside = git("rev-parse", "--is-inside-work-tree")
    except OSError:
        tap.skip(what, "git is not installed")
        return
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        tap.skip(what, "not a git checkout")
        return
    if git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        tap.skip(what, "a shallow clone")
        return
    known = git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0
    tap.check(known, what, "not in `git log`: pin a commit of the history, as flatpak/README.md says")
    if not known:
        return
    prefix = git("rev-parse", "--show-prefix").stdout.strip()
    shown = git("show", "%s:%s%s" % (commit, prefix, name))
    try:
        theirs = json.loads(shown.stdout) if shown.returncode == 0 else {}
    except ValueError:
        theirs = {}

    def shape(m):
        return (m.get("runtime"), m.get("runtime-version"), [mod.get("name") for mod in m.get("modules", [])])

    tap.check(shape(theirs) == shape(manifest),
              "the pinned commit carries this manifest's runtime and modules (a commit made for it)",
              "the commit has %r, the manifest %r" % (shape(theirs), shape(manifest)))
    tagged = git("rev-parse", "--verify", "--quiet", "refs/tags/%s^{commit}" % tag)
    if tagged.returncode == 0:
        tap.check(tagged.stdout.strip() == commit, "the tag %s points at the pinned commit" % tag,
                  "%s is %s" % (tag, tagged.stdout.strip()))


def check_flatpak(tap, path):
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        tap.check(False, "the manifest is valid JSON", str(e))
        return
    tap.check(True, "the manifest is valid JSON")
    flatpak_dir = os.path.dirname(os.path.abspath(path))
    root = os.path.dirname(flatpak_dir)

    app_id = manifest.get("app-id", manifest.get("id"))
    tap.check(app_id == APP_ID, "app-id is " + APP_ID, "app-id: %r" % app_id)
    tap.check(manifest.get("runtime") == "org.gnome.Platform", "runtime is org.gnome.Platform")
    tap.check(manifest.get("sdk") == "org.gnome.Sdk", "sdk is org.gnome.Sdk")
    version = str(manifest.get("runtime-version", ""))
    tap.check(version.isdigit() and int(version) >= MIN_GNOME_RUNTIME,
              "runtime-version is a supported GNOME runtime (%d or later)" % MIN_GNOME_RUNTIME,
              "runtime-version: %r" % version)
    tap.check(manifest.get("command") == "planar", "command is planar")

    args = manifest.get("finish-args", [])
    required = ["--socket=wayland", "--socket=fallback-x11", "--share=ipc", "--device=dri",
                "--share=network"]
    absent = [a for a in required if a not in args]
    tap.check(not absent, "finish-args has what a viewer needs", "missing: " + " ".join(absent))
    forbidden = re.compile(r"^--(filesystem=(host|home|host-os|host-etc|/|~)|device=all|socket=session-bus|"
                           r"socket=system-bus|talk-name=org\.freedesktop\.Flatpak)")
    broad = [a for a in args if forbidden.match(a) or a.startswith("--socket=x11")]
    tap.check(not broad, "finish-args has no broad permission (files come through portals)",
              "found: " + " ".join(broad))
    cleanup = manifest.get("cleanup", [])
    tap.check(not any(c.rstrip("/") in ("/share/man", "/share/man/man1") for c in cleanup),
              "the manifest's cleanup keeps the man pages", "cleanup: %r" % cleanup)

    modules = [m for m in manifest.get("modules", []) if isinstance(m, dict)]
    names = [m.get("name") for m in modules]
    tap.check(len(modules) == len(manifest.get("modules", [])),
              "every module is inline (nothing hides in a file the check does not read)")
    tap.check(bool(modules) and names[-1] == "planar", "the last module is Planar itself",
              "modules: %r" % names)
    for needed in ("protobuf-c", "yajl", "grpc", "abseil-cpp", "c-ares", "re2"):
        tap.check(needed in names, "%s is built" % needed, "modules: %r" % names)

    unpinned = []
    for m in modules:
        for source in m.get("sources", []):
            kind = source.get("type") if isinstance(source, dict) else "file " + str(source)
            if kind in ("archive", "file"):
                ok = bool(re.fullmatch(r"[0-9a-f]{64}", source.get("sha256", "")))
            elif kind == "git":
                ok = bool(source.get("tag")) and bool(re.fullmatch(r"[0-9a-f]{40}", source.get("commit", "")))
            elif kind == "patch":
                ok = bool(source.get("path")) and not source.get("url")
            else:
                ok = False
            if not ok:
                unpinned.append("%s: %r" % (m.get("name"), source))
    tap.check(not unpinned, "every source is pinned (archives by sha256, git by tag and commit)",
              "\n".join(unpinned))

    grpc = modules[names.index("grpc")] if "grpc" in names else {}
    grpc_sources = grpc.get("sources", [])
    tap.check(len(grpc_sources) == 1 and grpc_sources[0].get("type") == "git"
              and not grpc_sources[0].get("disable-submodules"),
              "gRPC comes from git with its submodules (upb and third_party)")
    grpc_text = json.dumps(grpc)
    for option in ("-DgRPC_BUILD_CODEGEN=OFF", "-DgRPC_BUILD_TESTS=OFF", "-DgRPC_DOWNLOAD_ARCHIVES=OFF",
                   "-DgRPC_SSL_PROVIDER=package", "-DgRPC_ZLIB_PROVIDER=package"):
        tap.check(option in grpc_text, "gRPC is configured with " + option)
    tap.check(re.search(r"ninja [^\"]* grpc\"", grpc_text) is not None,
              "gRPC builds only its C core target")

    planar = modules[-1] if modules else {}
    tap.check(planar.get("buildsystem") == "meson", "Planar builds with meson")
    tap.check("-Dtests=false" in planar.get("config-opts", []), "Planar's tests are not built in the sandbox")
    psources = planar.get("sources", [])
    tap.check(len(psources) == 1 and psources[0].get("type") == "git"
              and psources[0].get("tag") and psources[0].get("commit"),
              "Planar itself comes from git at a tag and a commit", "sources: %r" % psources)
    check_planar_commit(tap, flatpak_dir, os.path.basename(path), manifest, psources[0] if len(psources) == 1 else {})

    # Every dependency() meson requires is in the runtime or built by a module.
    listing = os.path.join(flatpak_dir, "runtime-pkgconfig.txt")
    try:
        runtime = runtime_pkgconfig(listing)
    except OSError as e:
        tap.check(False, "flatpak/runtime-pkgconfig.txt is readable", str(e))
        return
    provided = {}
    for m in modules:
        for pc in MODULE_PROVIDES.get(m.get("name"), []):
            provided[pc] = m.get("name")
    missing = []
    deps = meson_dependencies(root)
    for name, where in deps:
        if name in NOT_PKG_CONFIG or name in runtime or name in provided:
            continue
        missing.append("%s (%s): neither in the runtime nor built by a module" % (name, where))
    tap.check(bool(deps) and not missing,
              "every dependency() meson requires is in the runtime or has a module",
              "\n".join(missing))
    doubled = sorted(pc for pc in provided if pc in runtime and provided[pc] != "abseil-cpp")
    tap.check(not doubled, "no module rebuilds a library the runtime has (abseil aside: see flatpak/README.md)",
              "\n".join("%s: module %s, runtime %s" % (pc, provided[pc], runtime[pc]) for pc in doubled))

    builder = shutil.which("flatpak-builder")
    if builder is None:
        tap.skip("flatpak-builder --show-manifest parses the manifest", "flatpak-builder is not installed")
        return
    # It keeps a .flatpak-builder folder in the current one: a scratch folder.
    with tempfile.TemporaryDirectory() as scratch:
        run = subprocess.run([builder, "--show-manifest", os.path.abspath(path)], capture_output=True, text=True,
                             cwd=scratch)
    unknown = [l for l in run.stderr.splitlines() if "Unknown property" in l or "WARNING" in l]
    tap.check(run.returncode == 0 and not unknown, "flatpak-builder --show-manifest parses the manifest",
              run.stderr)
    try:
        shown = json.loads(run.stdout)
    except ValueError:
        shown = None
    tap.check(shown == manifest, "flatpak-builder reads every property back unchanged")


def check_mime(tap, path):
    ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError) as e:
        tap.check(False, "the MIME package is well-formed XML", str(e))
        return
    tap.check(True, "the MIME package is well-formed XML")
    root = tree.getroot()
    tap.check(root.tag == ns + "mime-info", "its root is <mime-info> in the shared-mime-info namespace")
    types = {t.get("type"): t for t in root.findall(ns + "mime-type")}
    tap.check(MIME_TYPE in types, "it declares " + MIME_TYPE)
    globs = [g.get("pattern") for g in types.get(MIME_TYPE, root).findall(ns + "glob")]
    tap.check("*.xplane.pb" in globs, "its glob is *.xplane.pb", "globs: %r" % globs)

    update = shutil.which("update-mime-database")
    tap.check(update is not None, "update-mime-database is installed (shared-mime-info)")
    if update is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "packages"))
        shutil.copy(path, os.path.join(tmp, "packages", APP_ID + ".xml"))
        run = subprocess.run([update, tmp], capture_output=True, text=True)
        # It warns on stderr about a folder outside XDG_DATA_DIRS; errors in
        # the package are reported as "Error" or "Failed".
        errors = [l for l in run.stderr.splitlines() if re.search(r"\b(Error|Failed|Unknown)\b", l)]
        tap.check(run.returncode == 0 and not errors, "update-mime-database accepts it",
                  run.stderr)
        globs2 = os.path.join(tmp, "globs2")
        text = open(globs2, encoding="utf-8").read() if os.path.exists(globs2) else ""
        tap.check(MIME_TYPE + ":*.xplane.pb" in text, "the compiled database maps *.xplane.pb to " + MIME_TYPE)


def main():
    commands = {"potfiles": (check_potfiles, 1), "marked": (check_marked, 1), "flatpak": (check_flatpak, 1), "mime": (check_mime, 1),
                "compose": (check_compose, 2)}
    if len(sys.argv) < 2 or sys.argv[1] not in commands or len(sys.argv) != 2 + commands[sys.argv[1]][1]:
        sys.stderr.write("usage: check-packaging.py potfiles|marked SOURCE_ROOT | flatpak MANIFEST | mime MIME_XML"
                         " | compose SOURCE_ROOT BUILD_ROOT\n")
        return 2
    tap = Tap()
    commands[sys.argv[1]][0](tap, *sys.argv[2:])
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
