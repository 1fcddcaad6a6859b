"""The catalogue the wheel carries, and the parameters made from an adapter config."""
import pytest

from agy_conformance import adapter_profiles, catalogue, conformance_params
from agy_conformance.catalogue import catalogue_dir


def test_the_catalogue_lists_the_scenario_files_of_each_profile():
    names = [s.name for s in catalogue(["oneshot", "session"])]
    files = sorted(
        p.relative_to(catalogue_dir()).with_suffix("").as_posix()
        for profile in ("oneshot", "session")
        for p in (catalogue_dir() / profile).rglob("*.toml")
    )
    assert files and sorted(names) == files
    assert "oneshot/hung-agy-is-killed-after-timeout" in names
    assert not any(n.startswith("agy-scripts/") for n in names)


def write(tmp_path, text):
    path = tmp_path / "adapter.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_params_follow_the_configs_profiles_and_ids_are_scenario_names(tmp_path):
    config = write(tmp_path, '[adapter]\nname = "x"\ncommand = ["x"]\nprofiles = ["session"]\n')
    params = conformance_params(config, xfail={"session/" + catalogue(["session"])[0].name.split("/")[1]: "known"})
    assert [p.id for p in params] == [s.name for s in catalogue(["session"])]
    assert [m.name for m in params[0].marks] == ["xfail"]
    assert all(not p.marks for p in params[1:])


def test_an_xfail_naming_no_scenario_is_an_error(tmp_path):
    config = write(tmp_path, '[adapter]\nprofiles = ["oneshot"]\n')
    with pytest.raises(ValueError, match="oneshot/no-such-scenario"):
        conformance_params(config, xfail={"oneshot/no-such-scenario": "?"})


@pytest.mark.parametrize("text", ['[adapter]\nprofiles = ["chat"]\n', "[adapter]\n", "profiles = [\n"])
def test_a_config_without_known_profiles_is_reported_with_its_path(tmp_path, text):
    config = write(tmp_path, text)
    with pytest.raises(ValueError, match="adapter.toml"):
        adapter_profiles(config)


@pytest.mark.parametrize("profile", ["oneshot", "session", "acp", "text", "mcp", "acp-agent"])
def test_every_profile_of_the_catalogue_makes_params(tmp_path, profile):
    config = write(tmp_path, f'[adapter]\nname = "x"\ncommand = ["x"]\nprofiles = ["{profile}"]\n')
    ids = [p.id for p in conformance_params(config)]
    assert ids and all(i.startswith(f"{profile}/") for i in ids)
    assert sorted(ids) == sorted(
        p.relative_to(catalogue_dir()).with_suffix("").as_posix()
        for p in (catalogue_dir() / profile).rglob("*.toml")
    )
