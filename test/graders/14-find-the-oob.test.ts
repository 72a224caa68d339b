import { graderSuite } from "./suite";

graderSuite("14-find-the-oob");
