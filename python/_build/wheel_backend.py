"""A PEP 517 build backend for canvasgym-client, standard library only.

It builds a pure-Python wheel of the `canvasgym_client` package (and an editable wheel, PEP 660, and an sdist), reading
the name, version and Python requirement from pyproject.toml. Nothing to download: pip runs it in its isolated build
environment as it is.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import zipfile

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the few string fields are read by hand
    tomllib = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "canvasgym_client"


def _project() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        raw = f.read()
    if tomllib is not None:
        return tomllib.loads(raw.decode("utf-8"))["project"]
    project, section = {}, None
    for line in raw.decode("utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[project]" and "=" in line:
            key, value = (s.strip() for s in line.split("=", 1))
            if value.startswith('"'):
                project[key] = value.strip('"')
    return project


def _names() -> tuple[str, str, str]:
    p = _project()
    dist = p["name"].replace("-", "_")
    return p["name"], dist, p["version"]


def _metadata() -> str:
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}", f"Summary: {p.get('description', '')}"]
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    return "\n".join(lines) + "\n"


def _wheel_file() -> str:
    return "Wheel-Version: 1.0\nGenerator: canvasgym wheel_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files():
    base = os.path.join(ROOT, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".typed")):
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, ROOT).replace(os.sep, "/"), path


def _write_wheel(directory: str, files: list[tuple[str, bytes]]) -> str:
    _, dist, version = _names()
    info = f"{dist}-{version}.dist-info"
    files = files + [(f"{info}/METADATA", _metadata().encode()), (f"{info}/WHEEL", _wheel_file().encode())]
    record = []
    for arc, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arc},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    name = f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files:
            z.writestr(arc, data)
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_sdist = get_requires_for_build_wheel
get_requires_for_build_editable = get_requires_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    for arc, path in _package_files():
        with open(path, "rb") as f:
            files.append((arc, f.read()))
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth line puts the source folder on sys.path: edits take effect without reinstalling.
    return _write_wheel(wheel_directory, [("canvasgym_client_editable.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    _, dist, version = _names()
    name = f"{dist}-{version}"
    out = os.path.join(sdist_directory, f"{name}.tar.gz")
    with tarfile.open(out, "w:gz") as tar:
        for rel in ["pyproject.toml", "_build/wheel_backend.py"] + [arc for arc, _ in _package_files()]:
            tar.add(os.path.join(ROOT, rel), arcname=f"{name}/{rel}")
        pkg_info = _metadata().encode()
        ti = tarfile.TarInfo(f"{name}/PKG-INFO")
        ti.size = len(pkg_info)
        tar.addfile(ti, io.BytesIO(pkg_info))
    return os.path.basename(out)
