"""Packaging for toolcall_lib. Everything about the project lives in settings.ini (the nbdev 2 layout);
this file only turns that into setuptools arguments."""
from configparser import ConfigParser
from pathlib import Path
import setuptools

here = Path(__file__).parent
cfg = ConfigParser(delimiters=['='])
cfg.read(here/'settings.ini', encoding='utf-8')
meta = cfg['DEFAULT']

licenses = {'apache2': ('Apache Software License 2.0', 'OSI Approved :: Apache Software License')}
license_name, license_classifier = licenses[meta['license']]
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
    license=license_name,
    url=meta['git_url'],
    keywords=meta['keywords'].split(),
    classifiers=[f'Development Status :: {statuses[int(meta["status"]) - 1]}',
                 f'Intended Audience :: {meta["audience"]}',
                 f'License :: {license_classifier}',
                 f'Natural Language :: {meta["language"]}']
                + [f'Programming Language :: Python :: {v}' for v in py_versions],
    packages=setuptools.find_packages(include=[meta['lib_path'], meta['lib_path'] + '.*']),
    include_package_data=True,
    python_requires=f'>={min_python}',
    install_requires=meta.get('requirements', '').split(),
    # every `NAME_requirements` key of settings.ini is an extra: dev, interp, mcp, postgres, sdk
    extras_require={k[:-len('_requirements')]: v.split() for k, v in meta.items() if k.endswith('_requirements')},
    entry_points={'console_scripts': meta.get('console_scripts', '').split(),
                  'nbdev': [f'{meta["lib_path"]}={meta["lib_path"]}._modidx:d']},
    zip_safe=False,
)
