"""Packaging for toolcall_lib. Everything about the project lives in settings.ini (the nbdev 2 layout);
this file only turns that into setuptools arguments."""
from configparser import ConfigParser
from pathlib import Path
import setuptools

here = Path(__file__).parent
cfg = ConfigParser(delimiters=['='])
cfg.read(here/'settings.ini', encoding='utf-8')
meta = cfg['DEFAULT']

# settings.ini names the license as nbdev does; the package metadata carries its SPDX expression (PEP 639), which
# replaces the `License ::` classifiers (setuptools refuses both together).
licenses = {'apache2': 'Apache-2.0'}
statuses = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable']
min_python = meta['min_python']
py_versions = [f'3.{minor}' for minor in range(int(min_python.split('.')[1]), 14)]

readme = here/'README.md'
setuptools.setup(
    name=meta['lib_name'],
    version=meta['version'],
    description=meta['description'],
    long_description=readme.read_text(encoding='utf-8') if readme.exists() else '',
    long_description_content_type='text/markdown',
    author=meta['author'],
    author_email=meta['author_email'],
    license_expression=licenses[meta['license']],
    license_files=['LICENSE'],
    url=meta['git_url'],
    project_urls={'Documentation': meta['doc_host'] + meta['doc_baseurl'], 'Source': meta['git_url'],
                  'Issues': meta['git_url'] + '/issues', 'Changelog': meta['git_url'] + '/commits/' + meta['branch']},
    keywords=meta['keywords'].split(),
    classifiers=[f'Development Status :: {statuses[int(meta["status"]) - 1]}',
                 f'Intended Audience :: {meta["audience"]}',
                 f'Natural Language :: {meta["language"]}']
                + [f'Programming Language :: Python :: {v}' for v in py_versions] + ['Typing :: Typed'],
    packages=setuptools.find_packages(include=[meta['lib_path'], meta['lib_path'] + '.*']),
    include_package_data=True,
    package_data={meta['lib_path']: ['py.typed']},  # PEP 561: type checkers read the package's own annotations
    python_requires=f'>={min_python}',
    install_requires=meta.get('requirements', '').split(),
    # every `NAME_requirements` key of settings.ini is an extra: dev, interp, mcp, postgres, sdk
    extras_require={k[:-len('_requirements')]: v.split() for k, v in meta.items() if k.endswith('_requirements')},
    entry_points={'console_scripts': meta.get('console_scripts', '').split(),
                  'nbdev': [f'{meta["lib_path"]}={meta["lib_path"]}._modidx:d']},
    zip_safe=False,
)
