#!/usr/bin/env python3
# check-install.py: `meson install --destdir` into a temporary folder, then
# checks what was installed (TAP):
# - no installed file holds a path of the build or the source tree
#   (`strings -a`, as a packager would look);
# - planar-gen, a developer tool, is in bin only when the build says so
#   (-Dinstall_planar_gen);
# - the man pages are there.
#
# Usage: check-install.py MESON BUILD_ROOT SOURCE_ROOT INSTALL_PLANAR_GEN GUI
#
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import subprocess
import sys
import tempfile

meson, build_root, source_root, install_gen, gui = sys.argv[1:6]
results = []


def check(ok, what):
    results.append((ok, what))


with tempfile.TemporaryDirectory(prefix='planar-install-') as dest:
    done = subprocess.run([meson, 'install', '-C', build_root, '--destdir', dest, '--no-rebuild', '--quiet'],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(done.returncode == 0, 'meson install --destdir' + ('' if done.returncode == 0 else ': ' + done.stdout))
    roots = sorted({os.path.realpath(build_root), os.path.realpath(source_root)})
    files = []
    for folder, _, names in os.walk(dest):
        files += [os.path.join(folder, name) for name in names if not os.path.islink(os.path.join(folder, name))]
    check(len(files) > 0, 'something was installed')
    for path in sorted(files):
        text = subprocess.run(['strings', '-a', path], stdout=subprocess.PIPE, check=True).stdout
        found = [root for root in roots if root.encode() in text]
        check(not found, 'no build-tree path in ' + os.path.relpath(path, dest) +
              ('' if not found else ' (holds ' + ', '.join(found) + ')'))
    bins = {}
    for folder, _, names in os.walk(dest):
        if os.path.basename(folder) == 'bin':
            bins.update({name: os.path.join(folder, name) for name in names})
    check('planar-cli' in bins, 'planar-cli is installed')
    check(('planar-gen' in bins) == (install_gen == 'true'),
          'planar-gen is installed only with -Dinstall_planar_gen=true')
    pages = {name for folder, _, names in os.walk(dest) if folder.endswith('man1') for name in names}
    check('planar-cli.1' in pages, 'planar-cli.1 is installed')
    check(gui != 'true' or 'planar.1' in pages, 'planar.1 is installed with the app')

print('1..%d' % len(results))
for i, (ok, what) in enumerate(results, 1):
    print('%s %d - %s' % ('ok' if ok else 'not ok', i, what))
sys.exit(0 if all(ok for ok, _ in results) else 1)
