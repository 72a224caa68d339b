import { graderSuite } from "./suite";

graderSuite("04-relu-scale-bias");
