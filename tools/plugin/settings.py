"""The course plugin's settings as MkDocs' config schema, made from the one table of them
(:data:`tools.course.config.SETTINGS`), which ``check`` validates without MkDocs.

MkDocs validates the plugin's settings when it loads ``mkdocs.yml``: a value of the wrong type
or one its setting's check refuses is MkDocs' own config error, naming the setting, and an
unknown setting is MkDocs' warning (an error under ``strict: true``).
"""

from __future__ import annotations

import copy
from typing import Any

from mkdocs.config import base

from ..course import config as course_config


class _CourseOption(base.BaseConfigOption):
    """One setting of :data:`tools.course.config.SETTINGS`: its check, its default, its help."""

    def __init__(self, setting: course_config.Setting) -> None:
        super().__init__()
        self.setting = setting
        self.default = setting.default
        self.__doc__ = setting.help

    def run_validation(self, value: Any) -> Any:
        problem = self.setting.problem(value)
        if problem:
            raise base.ValidationError(f"{problem} ({self.setting.help})")
        return copy.deepcopy(self.setting.default) if value in (None, "", [], {}) else value


CourseSettings = type(
    "CourseSettings",
    (base.Config,),
    {
        "__doc__": "The course plugin's settings in mkdocs.yml, one per course setting.",
        **{setting.name: _CourseOption(setting) for setting in course_config.SETTINGS},
    },
)
