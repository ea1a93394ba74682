"""Configurations shared by the step tests."""

from __future__ import annotations

SUPPORT = {
    "roles": {
        "support": {
            "clearance": "internal",
            "scope": {
                "include": ["mission", "policies.*"],
                "exclude": ["policies.internal.*"],
            },
        },
        "other": {"clearance": "restricted"},
    }
}
