import { graderSuite } from "./suite";

graderSuite("09-rope-layouts");
