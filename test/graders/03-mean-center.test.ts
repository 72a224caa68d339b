import { graderSuite } from "./suite";

graderSuite("03-mean-center");
