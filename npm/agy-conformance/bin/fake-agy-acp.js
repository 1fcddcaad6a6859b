#!/usr/bin/env node
import { run } from "../lib/launch.js";

run("fake-agy-acp");
