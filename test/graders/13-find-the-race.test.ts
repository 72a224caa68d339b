import { graderSuite } from "./suite";

graderSuite("13-find-the-race");
