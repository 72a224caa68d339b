import { graderSuite } from "./suite";

graderSuite("07-silu-and-mul");
