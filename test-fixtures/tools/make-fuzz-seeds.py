#!/usr/bin/env python3
"""Writes the fuzz tests' seed corpora from the recordings and cases, for fuzzing by hand (docs/fuzzing.md).
Run from the repository root:  python3 test-fixtures/tools/make-fuzz-seeds.py

The recordings are tool output published by others: they live in the workspace's shared set
(../shared/fixtures/hosts), never in the project, so their seeds are named 'shared-<folder>' and git ignores
them (.gitignore); `mvn test` runs the same checks over the recordings themselves (RecordingsAsSeedsTest).
Other files in a corpus folder (crash-*, hand-written regression inputs for what fuzzing found, and other hand-made seeds)
are left alone."""
import os, pathlib, re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = [ROOT.parent / 'shared' / 'fixtures' / 'hosts', ROOT / 'test-fixtures' / 'cases']
TESTS = ROOT / 'probes' / 'src' / 'test' / 'resources' / 'io' / 'gpudetect'
TABLES = ROOT / 'probes' / 'src' / 'main' / 'resources' / 'io' / 'gpudetect' / 'tables'
NOT_BUNDLE = {'expected.json', 'README.md', 'shared-files.txt'}

# Bundle file name -> the fuzz tests whose seeds are every fixture copy of that file. One line per tool.
TOOL_TARGETS = {
    'nvidia-smi.xml': ['fuzz/NvidiaSmiXmlFuzzTestInputs/output', 'fuzz/SafeXmlFuzzTestInputs/document'],
    'nvidia-smi-q.txt': ['fuzz/NvidiaSmiQFuzzTestInputs/output'],
    'nvidia-smi-query.csv': ['fuzz/NvidiaSmiCsvFuzzTestInputs/output'],
    'nvidia-smi.txt': ['fuzz/NvidiaSmiTableFuzzTestInputs/output'],
    'nvidia-smi-L.txt': ['fuzz/NvidiaSmiListFuzzTestInputs/output'],
    'amd-smi.json': ['fuzz/AmdSmiFuzzTestInputs/output'],
    'amd-smi.txt': ['fuzz/AmdSmiTextFuzzTestInputs/output'],
    'rocm-smi.json': ['fuzz/RocmSmiJsonFuzzTestInputs/output'],
    'rocminfo.txt': ['fuzz/RocminfoFuzzTestInputs/output'],
    'rocm-smi.txt': ['fuzz/RocmSmiTableFuzzTestInputs/output'],
    'clinfo.txt': ['fuzz/ClinfoFuzzTestInputs/output'],
    'clinfo-raw.txt': ['fuzz/ClinfoRawFuzzTestInputs/output'],
    'lspci.txt': ['fuzz/LspciFuzzTestInputs/output'],
    'bundle.json': ['fuzz/BundleManifestFuzzTestInputs/manifest'],
}
# Probes that read more than one file: their seeds are the part of each fixture bundle they read, in the
# BundleText form ('=== path' sections). Path prefix -> fuzz test.
BUNDLE_TARGETS = {
    'nvml.json': 'fuzz/NvmlFuzzTestInputs/bundle',
    'sys/': 'fuzz/SysfsPciFuzzTestInputs/bundle',
}
WHOLE_BUNDLES = 'fuzz/DetectorFuzzTestInputs/bundle'


def fixture_folders():
    for base in FIXTURES:
        if not base.is_dir():
            print(f'skipped: {base} is missing')
            continue
        for d in sorted(p for p in base.iterdir() if p.is_dir()):
            yield d


def bundle_files(folder):
    """(relative path, bytes, link target or None) for every file and link, links not followed."""
    entries = []
    for here, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            p = pathlib.Path(here) / name
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                entries.append((rel, b'', os.readlink(p)))
            elif p.is_file() and name not in NOT_BUNDLE:
                entries.append((rel, p.read_bytes(), None))
    return sorted(entries)


def section(rel, data, link):
    if link is not None:
        return b'=== ' + rel.encode() + b' -> ' + link.encode() + b'\n'
    return b'=== ' + rel.encode() + b'\n' + data


def write(corpus, name, data, written):
    d = TESTS / corpus
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)
    written.setdefault(corpus, set()).add(name)


def main():
    written = {}
    for folder in fixture_folders():
        seed = f'shared-{folder.name}'
        sections = []
        partial = {}
        for rel, data, link in bundle_files(folder):
            if link is None:
                for corpus in TOOL_TARGETS.get(os.path.basename(rel), []):
                    write(corpus, seed, data, written)
            sections.append(section(rel, data, link))
            for prefix, corpus in BUNDLE_TARGETS.items():
                if rel.startswith(prefix):
                    partial.setdefault(corpus, []).append(section(rel, data, link))
        if sections:
            write(WHOLE_BUNDLES, seed, b'\n'.join(sections), written)
        for corpus, parts in partial.items():
            write(corpus, seed, b'\n'.join(parts), written)
    # Table seeds: the head of each shipped table and the NVIDIA / AMD entries a lookup hits.
    pci = (TABLES / 'pci.ids').read_bytes().split(b'\n')
    head = pci[:40]
    nvidia = [l for l in pci if re.match(rb'^(10de|\t2684|\t\t10de 16f3)', l)][:20]
    write('fuzz/PciIdsFuzzTestInputs/table', 'fixture-pci.ids-excerpt', b'\n'.join(head + nvidia) + b'\n', written)
    # tables/AmdGpuIdsFuzzTestInputs/table/fixture-amdgpu.ids-excerpt is hand-written (made-up products in
    # amdgpu.ids's layout), not cut from libdrm's table: not written here.
    # Drop seeds of fixtures that no longer exist.
    for corpus, names in written.items():
        for f in (TESTS / corpus).glob('shared-*'):
            if f.name not in names:
                f.unlink()
    for corpus, names in sorted(written.items()):
        print(f'{len(names):4d} {corpus}')


main()
